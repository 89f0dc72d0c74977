// chainRestScript (read6_pointer.go): the chain kept under {{key}} in {{store}}.
({{store}} || {})['{{key}}'] || []
