" parm files (editors/README.md)
autocmd BufRead,BufNewFile *.parm setfiletype parm
