; Dart, read by ipuaro.index.parsers._tags (captures explained there). The grammar keeps a
; function's body as the sibling after its signature: @body takes it into the span. Classes,
; mixins and enums are classes; an `extension on T` adds its methods to T.
(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (mixin) . (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(extension_declaration class: (_) @name) @definition.container

(program
  (function_signature name: (identifier) @name) @definition.function
  .
  (function_body) @body)
(_
  (method_signature
    [(function_signature name: (identifier) @name)
     (getter_signature name: (identifier) @name)
     (setter_signature name: (identifier) @name)
     (constructor_signature . name: (identifier) @name)
     (factory_constructor_signature . (identifier) @name)]) @definition.function
  .
  (function_body) @body)
(declaration
  [(function_signature name: (identifier) @name)
   (getter_signature name: (identifier) @name)
   (constructor_signature . name: (identifier) @name)]) @definition.function

((configurable_uri) @import.internal
  (#not-match? @import.internal "^.(dart|package):"))
((configurable_uri) @import
  (#match? @import "^.(dart|package):"))

[(identifier) (type_identifier)] @reference
(_ (identifier) @call . (selector (argument_part)))
(_ (selector (unconditional_assignable_selector (identifier) @call)) . (selector (argument_part)))
(comment) @comment
[(block) (class_body) (extension_body)] @block
