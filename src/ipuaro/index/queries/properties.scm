; Java .properties, read by ipuaro.index.parsers._tags (captures explained there). A data
; file: every key is a definition (a `const` symbol and one of the file's keys, spanning its
; continuation lines); `${key}` substitutions and keys are references.
(property (key) @name) @definition.constant

(key) @reference
(comment) @comment
