; Bash, read by ipuaro.index.parsers._tags (captures explained there).
(function_definition name: (word) @name) @definition.function

((command name: (command_name (word) @_source) argument: [(word) (string) (raw_string)] @import)
  (#any-of? @_source "source" "."))

[(word) (variable_name)] @reference
(command name: (command_name (word) @call))
(comment) @comment
(compound_statement) @block
