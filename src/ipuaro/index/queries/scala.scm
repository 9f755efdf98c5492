; Scala, read by ipuaro.index.parsers._tags (captures explained there). An object and its
; companion class are two classes of the same name.
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(enum_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.interface
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function

(import_declaration) @import

[(identifier) (type_identifier)] @reference
(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (identifier) @call))
[(comment) (block_comment)] @comment
[(block) (template_body)] @block
