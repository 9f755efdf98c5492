; OCaml interfaces (.mli), read by ipuaro.index.parsers._tags (captures explained there).
(value_specification (value_name) @name) @definition.function
(external (value_name) @name) @definition.function
(type_binding name: (type_constructor) @name) @definition.class
(module_binding (module_name) @name) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(class_binding (class_name) @name) @definition.class

(open_module_signature module: (_) @import)

[(value_name) (type_constructor) (module_name) (constructor_name) (field_name)] @reference
(comment) @comment
(signature) @block
