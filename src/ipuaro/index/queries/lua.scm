; Lua, read by ipuaro.index.parsers._tags (captures explained there). `function M.f()` and
; `function M:f()` are functions named M.f (a table is not a class).
(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.function

((function_call name: (identifier) @_require arguments: (arguments . (string) @import))
  (#eq? @_require "require"))

(identifier) @reference
(function_call name: (identifier) @call)
(function_call name: (dot_index_expression field: (identifier) @call))
(function_call name: (method_index_expression method: (identifier) @call))
(comment) @comment
(block) @block
