; Elixir, read by ipuaro.index.parsers._tags (captures explained there). Modules and protocols
; are classes; `def`/`defp`/`defmacro`/`defguard` clauses are recorded one by one.
((call target: (identifier) @_keyword (arguments . (alias) @name))
  (#any-of? @_keyword "defmodule" "defprotocol")) @definition.class
((call target: (identifier) @_keyword
    (arguments . [
      (call target: (identifier) @name)
      (identifier) @name
      (binary_operator left: (call target: (identifier) @name))
      (binary_operator left: (identifier) @name)]))
  (#any-of? @_keyword "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate")) @definition.function

((call target: (identifier) @_keyword (arguments . (alias) @import))
  (#any-of? @_keyword "alias" "import" "require" "use"))

[(identifier) (alias)] @reference
((call target: (identifier) @call)
  (#not-match? @call "^(def|defp|defmacrop?|defguardp?|defdelegate|defmodule|defprotocol|defimpl|defstruct|alias|import|require|use)$"))
(call target: (dot right: (identifier) @call))
(comment) @comment
(do_block) @block
