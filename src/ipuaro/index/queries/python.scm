; Bulk captures for Python, run once per file by ipuaro.index.parsers.
; Definitions are read by walking module and class bodies in Python; this query collects what is
; spread over the whole tree.

; Reference index: every identifier occurrence, attribute names included (a.b -> a, b).
(identifier) @reference

; Call graph: the called name is the last identifier of the callee (a.b.c() -> c).
(call function: (identifier) @call)
(call function: (attribute attribute: (identifier) @call))

; TODO/FIXME/HACK/XXX are looked for in comments only (docstrings are strings).
(comment) @comment

; Nesting depth (complexity): indented blocks.
(block) @block

; Imports anywhere: module level, inside functions, try/except and if TYPE_CHECKING blocks.
[(import_statement) (import_from_statement) (future_import_statement)] @import
