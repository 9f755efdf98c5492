; Go, read by ipuaro.index.parsers._tags (captures explained there).
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name) @definition.function
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

(import_spec name: (_)? @import.name path: (_) @import)

[(identifier) (type_identifier) (field_identifier) (package_identifier)] @reference
(call_expression function: (identifier) @call)
(call_expression function: (selector_expression field: (field_identifier) @call))
(comment) @comment
(block) @block
