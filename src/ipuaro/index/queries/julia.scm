; Julia, read by ipuaro.index.parsers._tags (captures explained there). A module is a namespace;
; methods of one generic function are recorded one by one.
(module_definition name: (identifier) @name) @definition.module
(struct_definition (type_head [
  (identifier) @name
  (binary_expression . (identifier) @name)
  (parametrized_type_expression . (identifier) @name)
  (binary_expression . (parametrized_type_expression . (identifier) @name))])) @definition.class
(abstract_definition (type_head [
  (identifier) @name
  (binary_expression . (identifier) @name)
  (parametrized_type_expression . (identifier) @name)
  (binary_expression . (parametrized_type_expression . (identifier) @name))])) @definition.interface
(function_definition (signature [
  (call_expression . [(identifier) @name (field_expression (identifier) @name .)])
  (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
  (where_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
  (where_expression . (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)])))])) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.function
(assignment . [
  (call_expression . [(identifier) @name (field_expression (identifier) @name .)])
  (where_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))]) @definition.function

(using_statement [(identifier) (import_path) (scoped_identifier)] @import)
(using_statement (selected_import . [(identifier) (import_path) (scoped_identifier)] @import))
(import_statement [(identifier) (import_path) (scoped_identifier)] @import)
(import_statement (selected_import . [(identifier) (import_path) (scoped_identifier)] @import))
((call_expression . (identifier) @_include (argument_list . (string_literal) @import.internal))
  (#eq? @_include "include"))

(identifier) @reference
(call_expression . (identifier) @call)
(call_expression . (field_expression (identifier) @call .))
(macrocall_expression (macro_identifier (identifier) @call))
[(line_comment) (block_comment)] @comment
[(function_definition) (if_statement) (for_statement) (while_statement) (let_statement) (do_clause)] @block
