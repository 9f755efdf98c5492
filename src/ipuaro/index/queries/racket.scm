; Racket, read by ipuaro.index.parsers._tags (captures explained there). `(define (f …) …)` and
; `(define f (lambda …))` are functions, as are macros from `define-syntax-rule`; `struct` and a
; `define`d `class` are classes, with `define/public` (and friends) inside as methods;
; `module`/`module+` submodules are namespaces; `require` gives the imports (strings are files
; of the project).
((list . (symbol) @_form . (list . (symbol) @name))
  (#any-of? @_form "define" "define/public" "define/private" "define/override" "define/augment" "define/pubment" "define-syntax-rule" "define-syntax")) @definition.function
((list . (symbol) @_form . (symbol) @name . (comment)? . (list . (symbol) @_lambda))
  (#any-of? @_form "define" "define/public" "define/private" "define/override")
  (#any-of? @_lambda "lambda" "λ" "case-lambda")) @definition.function
((list . (symbol) @_form . (symbol) @name . (comment)? . (list . (symbol) @_class))
  (#eq? @_form "define")
  (#any-of? @_class "class" "class*" "mixin" "interface")) @definition.class
((list . (symbol) @_form . (symbol) @name)
  (#any-of? @_form "struct" "define-struct")) @definition.class
((list . (symbol) @_form . (symbol) @name)
  (#any-of? @_form "module" "module+" "module*")) @definition.module

((list . (symbol) @_require (symbol) @import)
  (#eq? @_require "require"))
((list . (symbol) @_require (string) @import.internal)
  (#eq? @_require "require"))
((list . (symbol) @_require (list . (symbol) @_in . [(symbol) (string)] @import))
  (#eq? @_require "require")
  (#any-of? @_in "only-in" "except-in" "prefix-in" "rename-in"))

(symbol) @reference
((list . (symbol) @call)
  (#not-match? @call "^(define.*|struct|module[+*]?|require|provide|lambda|λ|let[*]?|letrec|if|cond|when|unless|begin|class[*]?|set!|only-in|except-in|prefix-in|rename-in)$"))
(comment) @comment
