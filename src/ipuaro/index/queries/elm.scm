; Elm, read by ipuaro.index.parsers._tags (captures explained there). The module is a
; namespace; custom types and type aliases are classes; a top-level value with arguments or a
; body is a function whose span starts at its type annotation (@body takes the declaration);
; ports are functions. Definitions in `let` belong to their function.
(module_declaration name: (upper_case_qid) @name) @definition.module
(type_declaration name: (upper_case_identifier) @name) @definition.class
(type_alias_declaration name: (upper_case_identifier) @name) @definition.class
(file
  (type_annotation) @definition.function
  .
  (line_comment)?
  .
  (value_declaration
    (function_declaration_left . (lower_case_identifier) @name)) @body)
(file
  (value_declaration
    (function_declaration_left . (lower_case_identifier) @name)) @definition.function)
(port_annotation name: (lower_case_identifier) @name) @definition.function

(import_clause
  moduleName: (upper_case_qid) @import
  (as_clause name: (upper_case_identifier) @import.name)?)

[(lower_case_identifier) (upper_case_identifier)] @reference
(function_call_expr target: (value_expr name: (value_qid (lower_case_identifier) @call .)))
[(line_comment) (block_comment)] @comment
(let_in_expr) @block
