; Kotlin, read by ipuaro.index.parsers._tags (captures explained there). Extension functions
; (`fun Order.describe()`) are functions; a companion object's functions belong to its class.
(class_declaration name: (identifier) @name) @definition.class
(class_declaration "interface" name: (identifier) @name) @definition.interface
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function

(import (qualified_identifier) @import (identifier)? @import.name)

(identifier) @reference
(call_expression (identifier) @call)
(call_expression (navigation_expression (identifier) @call .))
[(line_comment) (block_comment)] @comment
[(block) (class_body)] @block
