; JSX (appended to the TSX and JavaScript queries): rendering a component is a call of it,
; <TodoRow /> -> TodoRow, <Icons.Close /> -> Close. Lower-case intrinsic tags (<div>) are not.
(jsx_opening_element name: (identifier) @call (#match? @call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @call (#match? @call "^[A-Z]"))
(jsx_opening_element name: (member_expression property: (property_identifier) @call))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @call))
