// chainRestScript (pointer.go): the chain kept under {{key}} in {{store}}.
({{store}} || {})['{{key}}'] || []
