; Emacs Lisp, read by ipuaro.index.parsers._tags (captures explained there). `defun`/`defmacro`
; and the cl-lib, `defsubst` and mode-defining forms are functions; `cl-defstruct` and
; `defclass` are classes. A `cl-defmethod` stays a function (each one on its own): the
; type it is specialised on is a lisp symbol, not a container of this file's kind. `require` gives the imports (features).
(function_definition name: (symbol) @name) @definition.function
(macro_definition name: (symbol) @name) @definition.function
((list . (symbol) @_form . (symbol) @name)
  (#any-of? @_form "cl-defun" "cl-defmacro" "cl-defmethod" "cl-defgeneric" "cl-defsubst" "defsubst" "define-inline" "define-minor-mode" "define-derived-mode" "define-globalized-minor-mode")) @definition.function
((list . (symbol) @_form . [(symbol) @name (list . (symbol) @name)])
  (#any-of? @_form "cl-defstruct" "defclass")) @definition.class

((list . (symbol) @_require . (quote (symbol) @import))
  (#any-of? @_require "require" "use-package"))

(symbol) @reference
((list . (symbol) @call)
  (#not-match? @call "^(require|provide|defvar|defcustom|defconst|let[*]?|if|when|unless|cond|progn|setq|lambda|declare|cl-def.*|defsubst|define-.*|&.*)$"))
(comment) @comment
