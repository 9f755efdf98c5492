; C, read by ipuaro.index.parsers._tags (captures explained there). Prototypes are not
; definitions; a function returning a pointer nests its name one or two declarators deeper.
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.class
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_)) (enum_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.class

(preproc_include path: (string_literal) @import.internal)
(preproc_include path: (system_lib_string) @import)

[(identifier) (type_identifier) (field_identifier)] @reference
(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
(comment) @comment
(compound_statement) @block
