; C++, read by ipuaro.index.parsers._tags (captures explained there). Prototypes and pure
; virtual declarations are not definitions; `Type::name` defined outside its class is a method
; of Type; a template's span starts at `template`.
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: (_ declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (operator_name)] @name))) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @receiver name: (_) @name))) @definition.function
(function_definition
  declarator: (_ declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @receiver name: (_) @name)))) @definition.function
(template_declaration (function_definition
  declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))) @definition.function
(template_declaration (function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @receiver name: (_) @name)))) @definition.function
(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.class
(union_specifier name: (_) @name body: (_)) @definition.class
(enum_specifier name: (_) @name body: (_)) @definition.class
(template_declaration [(class_specifier name: (_) @name body: (_)) (struct_specifier name: (_) @name body: (_))]) @definition.class
(type_definition
  type: [(struct_specifier !name body: (_)) (class_specifier !name body: (_)) (enum_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.class
(namespace_definition name: (_) @name) @definition.module

(preproc_include path: (string_literal) @import.internal)
(preproc_include path: (system_lib_string) @import)

[(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @reference
(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
(call_expression function: (qualified_identifier name: (identifier) @call))
(comment) @comment
(compound_statement) @block
