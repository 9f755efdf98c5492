; YAML: only comments are collected by query; top-level keys are read from each document.
(comment) @comment
