; Rust, read by ipuaro.index.parsers._tags (captures explained there).
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(trait_item name: (type_identifier) @name) @definition.interface
(impl_item type: (_) @name) @definition.container
(mod_item name: (identifier) @name body: (_)) @definition.module
(macro_definition name: (identifier) @name) @definition.function

((use_declaration argument: (_) @import.internal)
  (#match? @import.internal "^(crate|super|self)::"))
((use_declaration argument: (_) @import)
  (#not-match? @import "^(crate|super|self)::"))
(extern_crate_declaration name: (identifier) @import)
(mod_item !body name: (identifier) @import.internal)

[(identifier) (type_identifier) (field_identifier)] @reference
(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
(call_expression function: (scoped_identifier name: (identifier) @call))
(macro_invocation macro: (identifier) @call)
[(line_comment) (block_comment)] @comment
(block) @block
