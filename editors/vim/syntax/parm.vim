" Vim syntax file for parm, the language of parmc (docs/language.md).
" Install: editors/README.md. tests/sections/70-editors.sh checks that every
" keyword of compiler/front/lexer.re and every built-in of
" compiler/specialise/builtins.c is here.
if exists("b:current_syntax")
  finish
endif

syn keyword parmKeyword     if then else let in entry import
syn keyword parmBoolean     true false
syn keyword parmOperatorWord xor
syn keyword parmCombinator  parm two col coli vcolumn bmmc map mapi zip unzip replicate reduce reduceblocks scanblocks exscanblocks expand half join shift loglen
syn keyword parmMatrix      mat matof bitperm
syn keyword parmFunction    min max sqrt sin cos exp log tanh atan2 pow fma abs floor ceil
syn keyword parmType        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64

syn match parmOperator "==\|!=\|<=\|>=\|<<\|>>\|&&\|||\|->\|\.\.\|[=<>&|+\-*/%^!\\]"
syn match parmNumber   "\<\d\+\>"
syn match parmNumber   "\<0[xX]\x\+\>"
syn match parmNumber   "\<0[bB][01]\+\>"
syn match parmFloat    "\<\d\+\.\d\+\([eE][-+]\=\d\+\)\=\>"
syn match parmFloat    "\<\d\+[eE][-+]\=\d\+\>"
syn region parmString  start=+"+ end=+"+ oneline

" comments last: "--" wins over the operator "-"
syn match parmComment   "--.*$" contains=parmTodo
syn match parmTestBlock "^--\s*==.*$"
syn match parmTestLine  "^--\s\+\(entry\|run\|input\|output\|error\|random\)\>.*$" contains=parmTestWord
syn match parmTestWord  "\(entry\|run\|input\|output\|error\|random\)\>" contained
syn keyword parmTodo    TODO FIXME XXX contained

hi def link parmKeyword      Keyword
hi def link parmBoolean      Boolean
hi def link parmOperatorWord Operator
hi def link parmCombinator   Function
hi def link parmMatrix       Function
hi def link parmFunction     Function
hi def link parmType         Type
hi def link parmOperator     Operator
hi def link parmNumber       Number
hi def link parmFloat        Float
hi def link parmString       String
hi def link parmComment      Comment
hi def link parmTestBlock    SpecialComment
hi def link parmTestLine     Comment
hi def link parmTestWord     SpecialComment
hi def link parmTodo         Todo

let b:current_syntax = "parm"
