; Pony, read by ipuaro.index.parsers._tags (captures explained there). Classes, actors,
; primitives, structs and type aliases are classes, interfaces and traits are interfaces;
; `fun` methods, `be` behaviours and `new` constructors are their methods. `use` gives the
; imports (packages), keeping a `use alias = "package"` name.
(class_definition . (identifier) @name) @definition.class
(actor_definition . (identifier) @name) @definition.class
(primitive_definition . (identifier) @name) @definition.class
(struct_definition . (identifier) @name) @definition.class
(type_alias . (identifier) @name) @definition.class
(interface_definition . (identifier) @name) @definition.interface
(trait_definition . (identifier) @name) @definition.interface
(method . (identifier) @name) @definition.function
(behavior . (identifier) @name) @definition.function
(constructor . (identifier) @name) @definition.function

(use_statement (identifier)? @import.name . (string (string_content) @import))

(identifier) @reference
(call_expression callee: (identifier) @call)
(call_expression callee: (member_expression (identifier) @call .))
(line_comment) @comment
(block_comment) @comment
(members) @block
