; D, read by ipuaro.index.parsers._tags (captures explained there). The `module` line is a
; namespace; classes, structs, unions, enums and templates are classes, interfaces are
; interfaces; functions in an aggregate body are its methods, `this(...)` its constructors.
(module_declaration (module_fqn) @name) @definition.module
(class_declaration (class) . (identifier) @name) @definition.class
(struct_declaration (struct) . (identifier) @name) @definition.class
(union_declaration (union) . (identifier) @name) @definition.class
(enum_declaration (enum) . (identifier) @name) @definition.class
(template_declaration (template) . (identifier) @name) @definition.class
(interface_declaration (interface) . (identifier) @name) @definition.interface
(function_declaration (identifier) @name) @definition.function
(constructor (this) @name) @definition.function

(imported (module_fqn) @import)

(identifier) @reference
(call_expression . (identifier) @call)
(call_expression . (type (identifier) @call .))
(call_expression (new_expression (type (identifier) @call)))
(comment) @comment
[(aggregate_body) (block_statement)] @block
