; Gleam, read by ipuaro.index.parsers._tags (captures explained there). Custom types and type
; aliases are classes; `fn` definitions (with or without a body, as for `@external`) are
; functions; imports keep their `as` alias.
(type_definition (type_name name: (type_identifier) @name)) @definition.class
(type_alias (type_name name: (type_identifier) @name)) @definition.class
(function name: (identifier) @name) @definition.function

(import module: (module) @import alias: (identifier)? @import.name)

[(identifier) (type_identifier)] @reference
(function_call function: (identifier) @call)
(function_call function: (field_access field: (label) @call))
(comment) @comment
(block) @block
