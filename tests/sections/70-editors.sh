# Editor support (editors/): the TextMate grammar is JSON whose patterns
# compile, and both it and the Vim syntax name every keyword of the lexer and
# every built-in, as the compiler's sources list them.
keywords=$(grep -oE '^ *"[a-z]+" +\{ TOKEN\(TOK_' compiler/front/lexer.re | grep -oE '"[a-z]+"' | tr -d '"')
builtins=$(sed -n '/^static const Builtin builtins\[\]/,/^};/p' compiler/specialise/builtins.c | grep -oE '\{"[a-z0-9_]+"' | tr -d '{"')
[ "$(echo "$keywords" | wc -w)" -ge 10 ] && [ "$(echo "$builtins" | wc -w)" -ge 30 ] && pass ||
    fail "editors: could not read the keywords and built-ins from the compiler's sources"
python3 - editors/textmate/parm.tmLanguage.json <<'PY' && pass || fail "editors: the TextMate grammar does not load"
import json, re, sys
g = json.load(open(sys.argv[1]))
assert g["scopeName"] == "source.parm"
def walk(node):
    if isinstance(node, dict):
        for key in ("match", "begin", "end"):
            if key in node:
                re.compile(node[key])
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
walk(g)
PY
for word in $keywords $builtins; do
    if grep -qE "(^|[^a-z0-9_])$word([^a-z0-9_]|$)" editors/vim/syntax/parm.vim &&
        grep -qE "(^|[^a-z0-9_])$word([^a-z0-9_]|$)" editors/textmate/parm.tmLanguage.json; then
        pass
    else
        fail "editors: '$word' (compiler/front/lexer.re or builtins.c) is missing from editors/vim or editors/textmate"
    fi
done
# where vim is installed: the syntax loads and colours a test block
if command -v vim >/dev/null; then
    vim -Nu NONE -Es -c 'set rtp^=editors/vim' -c 'filetype on' -c 'syntax on' -c 'e examples/sort.parm' \
        -c "redir! > $TMP/vim.out" -c 'echo b:current_syntax synIDattr(synID(search("^-- ==", "n"), 1, 1), "name")' \
        -c 'redir END' -c 'qa!' </dev/null >/dev/null 2>&1
    grep -q 'parm parmTestBlock' "$TMP/vim.out" && pass || fail "editors: vim: $(cat "$TMP/vim.out")"
fi
