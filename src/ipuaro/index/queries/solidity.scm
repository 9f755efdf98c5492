; Solidity, read by ipuaro.index.parsers._tags (captures explained there). Contracts and
; libraries are classes, interfaces interfaces; functions, modifiers, events and the
; constructor in their body are their methods.
(contract_declaration name: (identifier) @name) @definition.class
(library_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(constructor_definition "constructor" @name) @definition.function
(event_definition name: (identifier) @name) @definition.function

((import_directive import_name: (identifier) @import.name source: (string) @import.internal)
  (#match? @import.internal "^.\\.\\.?/"))
((import_directive import_name: (identifier) @import.name source: (string) @import)
  (#not-match? @import "^.\\.\\.?/"))
((import_directive !import_name source: (string) @import.internal) (#match? @import.internal "^.\\.\\.?/"))
((import_directive !import_name source: (string) @import) (#not-match? @import "^.\\.\\.?/"))

[(identifier) (type_alias)] @reference
(call_expression function: (expression (identifier) @call))
(call_expression function: (expression (member_expression property: (identifier) @call)))
(comment) @comment
[(function_body) (contract_body) (block_statement)] @block
