; Haskell, read by ipuaro.index.parsers._tags (captures explained there). Each equation of a
; function is recorded (like overloads), the first widened to its type signature; an instance
; is a container of its type's methods; class members are the class's methods.
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function
(class_declarations (signature name: (variable) @name) @definition.function)
(data_type name: (name) @name) @definition.class
(newtype name: (name) @name) @definition.class
(type_synonym name: (name) @name) @definition.class
(class name: (name) @name) @definition.interface
(instance patterns: (type_patterns . (_) @name)) @definition.container

(import module: (module) @import alias: (module) @import.name)
(import module: (module) @import !alias)

[(variable) (name) (constructor)] @reference
(apply function: (variable) @call)
(apply function: (qualified (variable) @call))
(comment) @comment
[(local_binds) (match)] @block
