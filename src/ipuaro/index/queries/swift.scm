; Swift, read by ipuaro.index.parsers._tags (captures explained there). `class_declaration`
; covers class, struct, enum and extension (an extension names a user_type: a container).
(class_declaration name: (type_identifier) @name) @definition.class
(class_declaration name: (user_type) @name) @definition.container
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.function
(deinit_declaration "deinit" @name) @definition.function

(import_declaration (identifier) @import)

[(simple_identifier) (type_identifier)] @reference
(call_expression (simple_identifier) @call)
(call_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @call)))
[(comment) (multiline_comment)] @comment
[(function_body) (class_body) (protocol_body)] @block
