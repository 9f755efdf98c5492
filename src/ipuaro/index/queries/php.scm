; PHP, read by ipuaro.index.parsers._tags (captures explained there).
(class_declaration name: (name) @name) @definition.class
(trait_declaration name: (name) @name) @definition.class
(enum_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function
(namespace_definition name: (_) @name body: (_)) @definition.module

(namespace_use_clause . [(qualified_name) (name)] @import alias: (name)? @import.name)
([(require_expression) (require_once_expression) (include_expression) (include_once_expression)]
  (string (string_content) @import.internal))
([(require_expression) (require_once_expression) (include_expression) (include_once_expression)]
  (binary_expression right: (string (string_content) @import.internal)))

[(name) (variable_name)] @reference
(function_call_expression function: (name) @call)
(function_call_expression function: (qualified_name (name) @call .))
(member_call_expression name: (name) @call)
(scoped_call_expression name: (name) @call)
(object_creation_expression (name) @call)
(comment) @comment
(compound_statement) @block
