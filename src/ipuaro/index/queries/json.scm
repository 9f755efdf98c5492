; JSON (with the comments tree-sitter-json accepts): only comments are collected by query;
; top-level keys are read from the root object directly.
(comment) @comment
