; OCaml (.ml), read by ipuaro.index.parsers._tags (captures explained there). A `let` with
; parameters or a `fun`/`function` body is a function; a module with a body is a namespace.
(value_definition (let_binding pattern: (value_name) @name (parameter)) @definition.function)
(value_definition (let_binding pattern: (value_name) @name body: [(fun_expression) (function_expression)]) @definition.function)
(external (value_name) @name) @definition.function
(type_binding name: (type_constructor) @name) @definition.class
(module_binding (module_name) @name body: (structure)) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(class_binding (class_name) @name) @definition.class
(method_definition (method_name) @name) @definition.function

(open_module module: (_) @import)

[(value_name) (type_constructor) (module_name) (constructor_name) (field_name)] @reference
(application_expression function: (value_path (value_name) @call .))
(comment) @comment
[(structure) (let_expression) (match_expression) (fun_expression) (function_expression)] @block
