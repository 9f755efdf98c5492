; R, read by ipuaro.index.parsers._tags (captures explained there). A function is a function
; value bound to a name (`f <- function(x)`, `f = function(x)`); classes are S4 `setClass`,
; Reference classes and R6 classes bound to a name, whose `methods`/`public`/`private` lists
; hold the methods; `setGeneric` declares a function and `setMethod("f", "Class", …)` adds a
; method to the class.
(binary_operator
  lhs: [(identifier) (string (string_content))] @name
  rhs: (function_definition)) @definition.function

(binary_operator
  lhs: (identifier) @name
  rhs: (call function: (identifier) @_maker)
  (#any-of? @_maker "setRefClass" "R6Class")) @definition.class
((call
  function: (identifier) @_maker
  arguments: (arguments . (argument value: (string (string_content) @name))))
  (#eq? @_maker "setClass")) @definition.class
((argument
  name: (identifier) @_list
  value: (call
    function: (identifier) @_call
    arguments: (arguments
      (argument name: (identifier) @name value: (function_definition)) @definition.function)))
  (#any-of? @_list "methods" "public" "private" "active")
  (#eq? @_call "list"))
((call
  function: (identifier) @_maker
  arguments: (arguments . (argument value: (string (string_content) @name))))
  (#eq? @_maker "setGeneric")) @definition.function
((call
  function: (identifier) @_maker
  arguments: (arguments
    . (argument value: (string (string_content) @name))
    . (comma)
    . (argument value: (string (string_content) @receiver))))
  (#eq? @_maker "setMethod")) @definition.function

((call
  function: (identifier) @_load
  arguments: (arguments . (argument value: [(identifier) (string (string_content))] @import)))
  (#any-of? @_load "library" "require" "requireNamespace" "loadNamespace"))
((call
  function: (identifier) @_load
  arguments: (arguments . (argument value: (string (string_content) @import.internal))))
  (#any-of? @_load "source" "sys.source"))

(identifier) @reference
((call function: (identifier) @call)
  (#not-match? @call "^(library|require|source|setClass|setRefClass|setGeneric|setMethod)$"))
(call function: (namespace_operator rhs: (identifier) @call))
(call function: (extract_operator rhs: (identifier) @call))
(comment) @comment
(braced_expression) @block
