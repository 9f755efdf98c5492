; Fortran, read by ipuaro.index.parsers._tags (captures explained there). A module is a
; namespace; a program is recorded as a function; derived types are classes and the
; procedures bound to them stay module functions.
(module (module_statement (name) @name)) @definition.module
(program (program_statement (name) @name)) @definition.function
(function (function_statement name: (name) @name)) @definition.function
(subroutine (subroutine_statement name: (name) @name)) @definition.function
(module_procedure (module_procedure_statement name: (name) @name)) @definition.function
(derived_type_definition (derived_type_statement (type_name) @name)) @definition.class
(interface (interface_statement (name) @name)) @definition.interface

(use_statement (module_name) @import)

(identifier) @reference
(subroutine_call subroutine: (identifier) @call)
(call_expression . (identifier) @call)
(comment) @comment
[(do_loop) (if_statement) (select_case_statement) (where_statement)] @block
