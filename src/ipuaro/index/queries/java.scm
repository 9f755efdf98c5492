; Java, read by ipuaro.index.parsers._tags (captures explained there).
(class_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(compact_constructor_declaration name: (identifier) @name) @definition.function

(import_declaration [(scoped_identifier) (identifier)] @import)

[(identifier) (type_identifier)] @reference
(method_invocation name: (identifier) @call)
(object_creation_expression type: (type_identifier) @call)
[(line_comment) (block_comment)] @comment
[(block) (class_body)] @block
