; udev rules, read by ipuaro.index.parsers._tags (captures explained there). A data file:
; the definitions are the `LABEL="…"` jump targets and the `ENV{KEY}` values a rule sets
; (`=`, `:=`), each a `const` symbol and one of the file's keys. References are `GOTO`
; targets and every `ENV{KEY}` / `$env{KEY}` use; `IMPORT{file}` gives an import.
(rule (assignment "LABEL" (value (content) @name))) @definition.constant
((rule (assignment (env_var) @name (assignment_op) @_op)) @definition.constant
  (#match? @_op "^:?=$"))

(assignment "IMPORT" (import_type) @_type (value (content) @import.internal)
  (#eq? @_type "file"))

(assignment "GOTO" (value (content) @reference))
(env_var) @reference
(comment) @comment
