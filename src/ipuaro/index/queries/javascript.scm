; Bulk captures for JavaScript and JSX, run once per file by ipuaro.index.parsers.
; Declarations (functions, classes, imports, exports) are read by walking the few top-level
; nodes in Python; this query collects what is spread over the whole tree.

; Reference index: every identifier occurrence (keywords, strings and comments are not nodes
; of these types, so they never appear).
[
  (identifier)
  (property_identifier)
  (private_property_identifier)
  (shorthand_property_identifier)
  (shorthand_property_identifier_pattern)
  (statement_identifier)
] @reference

; Call graph: the called name is the last identifier of the callee (a.b.c() -> c; new X() -> X).
(call_expression function: (identifier) @call)
(call_expression function: (member_expression property: (_) @call))
(new_expression constructor: (identifier) @call)
(new_expression constructor: (member_expression property: (_) @call))

; TODO/FIXME/HACK/XXX are looked for in comments only.
(comment) @comment

; Nesting depth (complexity) counts these blocks.
[(statement_block) (class_body) (switch_body)] @block

; Imports that are expressions: require('m') and import('m') anywhere in the file.
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.require))
  (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.dynamic)))
