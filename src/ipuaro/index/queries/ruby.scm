; Ruby, read by ipuaro.index.parsers._tags (captures explained there). Modules hold methods
; (`def self.x`) and mixins, so they are recorded like classes.
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

((call method: (identifier) @_require arguments: (argument_list (string (string_content) @import.internal)))
  (#eq? @_require "require_relative"))
((call method: (identifier) @_require arguments: (argument_list (string (string_content) @import)))
  (#any-of? @_require "require" "load"))

[(identifier) (constant)] @reference
(call method: (identifier) @call)
(comment) @comment
[(body_statement) (do_block) (block)] @block
