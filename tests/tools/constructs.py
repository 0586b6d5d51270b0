#!/usr/bin/env python3
"""The constructs of docs/language.md, and which of them parm programs use.

    constructs.py [--what NAME] LANGUAGE_MD BUILTINS_C FILE_OR_DIR...
    constructs.py --used FILE

The first form lists the language's constructs, derived from the reference
itself (so that a construct added to the document is required at once):

- the keywords and the operator and punctuation tokens of section 1, and the
  kinds of the integer and float literals of its examples (decimal,
  hexadecimal, binary; with a point, an exponent or both);
- every alternative of the grammar of section 2, and every optional `[ ]` or
  repeated `{ }` group of one, used (a lambda of several parameters, an
  entry with a result row length, a tuple of three); an alternative that
  this file's parser does not recognise is an error, so a grammar change
  needs a change here;
- the binary operators and the two unary ones of the precedence table, and
  the operator sections (`OPNAME`);
- the built-in functions named in the tables of section 6, which must be
  exactly those of compiler/specialise/builtins.c's table (one added to
  either alone is an error);
- the entry forms of section 7.1 that the grammar does not tell apart: a
  parameter of rows, and a pad of `max`, of `min`, of a literal and of a
  tuple.

It then parses every FILE (and every file of a DIR) with the grammar of
section 2, unions the constructs of the files that parse (the others,
such as the fuzzer's mutations, are counted and left out), and prints
`constructs.py: NAME does not use: CONSTRUCT` for each construct that none
of them uses; the exit status is 1 when one is missing or the reference
and the compiler disagree. The second form prints the constructs of one
file, one a line."""
import os
import re
import sys

# ---- the lexical syntax (docs/language.md, section 1)

TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v\n]+) | (?P<comment>--[^\n]*)
  | (?P<number>(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)(?P<junk>[A-Za-z0-9_']*))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_']*) | (?P<string>"[^"\n]*")
  | (?P<op>==|!=|<=|>=|<<|>>|&&|\|\||->|\.\.|[=<>&|+\-*/%^!\\()\[\],:])""", re.X)
KEYWORDS = {"if", "then", "else", "let", "in", "entry", "import", "true", "false", "xor"}


class Syntax(Exception):
    pass


def literal_kind(text):
    """The kind of a number literal, as the constructs name it."""
    if text[:2] in ("0x", "0X"):
        return "hexadecimal integer"
    if text[:2] in ("0b", "0B"):
        return "binary integer"
    point, exponent = "." in text, "e" in text.lower()
    if point and exponent:
        return "float with a point and an exponent"
    return "float with a point" if point else "float with an exponent" if exponent else "decimal integer"


def tokens(src):
    """[(kind, text, starts a declaration)]: kind is 'int', 'float',
    'ident', 'keyword', 'string' or the operator itself."""
    if src.startswith("\ufeff"):
        src = src[1:]
    out, pos, col1 = [], 0, True
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m or m.group("junk"):
            raise Syntax("invalid token at %d" % pos)
        text = m.group(0)
        start = pos
        pos = m.end()
        if m.group("space") or m.group("comment"):
            continue
        first = start == 0 or src[start - 1] == "\n"
        if m.group("number"):
            kind = "float" if literal_kind(text).startswith("float") else "int"
        elif m.group("ident"):
            kind = "keyword" if text in KEYWORDS else "ident"
        elif m.group("string"):
            kind = "string"
        else:
            kind = text
        out.append((kind, text, first))
    return out


# ---- the grammar (docs/language.md, section 2): each alternative as the
# reference writes it, the key of the construct it is

G_PROGRAM = 'program ::= [ decl { SEP decl } ]'
G_EQUATION = 'decl ::= IDENT { pat } "=" expr'
G_ENTRY = 'decl ::= "entry" IDENT { eparam } [ ":" "[" expr "]" ] "=" expr'
G_IMPORT = 'decl ::= "import" STRING'
G_PARAM = 'eparam ::= "(" IDENT ":" type [ "pad" expr [ "," "segments" IDENT IDENT ] ] ")"'
PAD_GROUP = '[ "pad" expr [ "," "segments" IDENT IDENT ] ]'
G_RANGE = 'eparam ::= "(" IDENT ":" bound ".." bound ")"'
G_BOUND_INT, G_BOUND_NAME = 'bound ::= INT', 'bound ::= IDENT'
G_TYPE_NAME = 'type ::= IDENT'
G_TYPE_PAREN = 'type ::= "(" type ")"'
G_TYPE_TUPLE = 'type ::= "(" type "," type { "," type } ")"'
G_TYPE_ARRAY = 'type ::= "[" expr "]" type'
G_PAT_INT, G_PAT_NAME, G_PAT_C = 'pat ::= INT', 'pat ::= IDENT', 'pat ::= cpat'
G_WILD = 'cpat ::= "_"'
G_PAT_LIST = 'cpat ::= "[" pat { "," pat } "]"'
G_PAT_PAREN = 'cpat ::= "(" pat ")"'
G_PAT_TUPLE = 'cpat ::= "(" pat "," pat { "," pat } ")"'
G_LAMBDA = 'expr ::= "\\" pat { pat } "->" expr'
G_IF = 'expr ::= "if" expr "then" expr "else" expr'
G_LET = 'expr ::= "let" IDENT { pat } "=" expr "in" expr'
G_LET_C = 'expr ::= "let" cpat "=" expr "in" expr'
G_BEXPR = 'expr ::= bexpr'
G_BINARY = 'bexpr ::= bexpr BINOP bexpr'
G_BEXPR_UNARY = 'bexpr ::= unary'
G_NEG, G_NOT = 'unary ::= "-" unary', 'unary ::= "!" unary'
G_UNARY_INDEX = 'unary ::= index'
G_INDEX = 'index ::= index "!" operand'
G_INDEX_POWER = 'index ::= power'
G_POW = 'power ::= app "^" operand'
G_APP_ONLY = 'power ::= app'
G_OPERAND_POWER = 'operand ::= power'
G_OPERAND_NEG, G_OPERAND_NOT = 'operand ::= "-" unary', 'operand ::= "!" unary'
G_ATOM, G_APPLY = 'app ::= atom', 'app ::= app atom'
G_INT, G_FLOAT, G_TRUE, G_FALSE, G_NAME = ('atom ::= INT', 'atom ::= FLOAT', 'atom ::= "true"',
                                           'atom ::= "false"', 'atom ::= IDENT')
G_PAREN = 'atom ::= "(" expr ")"'
G_TUPLE = 'atom ::= "(" expr "," expr { "," expr } ")"'
G_LIST = 'atom ::= "[" expr { "," expr } "]"'
G_SECTION = 'atom ::= "(" OPNAME ")"'
# Alternatives the parser takes that no well-typed program can use: the
# right operands of '!' and '^' are integers, and a prefix '!' makes a bool.
NEVER_WELL_TYPED = {G_OPERAND_NOT}
RECOGNISED = {v for k, v in dict(globals()).items() if k.startswith("G_")}


def group(alt, text):
    """The construct of the optional or repeated group text of alt used."""
    return "%s :: %s" % (alt, text)


BINARY_LEVELS = [("||",), ("&&",), ("==", "!=", "<", "<=", ">", ">="), ("|",), ("xor",), ("&",), ("<<", ">>"),
                 ("+", "-"), ("*", "/", "%")]
OPNAMES = {"||", "&&", "==", "!=", "<", "<=", ">", ">=", "|", "xor", "&", "<<", ">>", "+", "-", "*", "/", "%", "^"}
ATOM_START = {"int", "float", "ident", "(", "["}


class Parser:
    """A recursive-descent parser of one declaration's tokens that records
    the constructs it meets in self.used."""

    def __init__(self, toks, used):
        self.toks, self.pos, self.used = toks, 0, used

    def peek(self, ahead=0):
        i = self.pos + ahead
        return self.toks[i] if i < len(self.toks) else ("eof", "", False)

    def at(self, *kinds):
        kind, text, _ = self.peek()
        return kind in kinds or (kind == "keyword" and text in kinds)

    def take(self, *kinds):
        if not self.at(*kinds):
            raise Syntax("expected %s, got %r" % (" or ".join(kinds), self.peek()[1]))
        self.pos += 1
        return self.toks[self.pos - 1]

    def use(self, *names):
        self.used.update(names)

    def decl(self):
        if self.at("import"):
            self.take("import")
            self.take("string")
            self.use(G_IMPORT)
        elif self.at("entry"):
            self.take("entry")
            self.take("ident")
            self.use(G_ENTRY)
            if self.at("("):
                self.use(group(G_ENTRY, "{ eparam }"))
            while self.at("("):
                self.eparam()
            if self.at(":"):
                self.take(":")
                self.take("[")
                self.expr()
                self.take("]")
                self.use(group(G_ENTRY, '[ ":" "[" expr "]" ]'))
            self.take("=")
            self.expr()
        else:
            self.take("ident")
            self.use(G_EQUATION)
            if not self.at("="):
                self.use(group(G_EQUATION, "{ pat }"))
            while not self.at("="):
                self.pat()
            self.take("=")
            self.expr()
        if self.pos != len(self.toks):
            raise Syntax("unexpected %r" % self.peek()[1])

    def eparam(self):
        self.take("(")
        self.take("ident")
        self.take(":")
        if self.at("int", "ident") and self.peek(1)[0] == "..":
            self.use(G_RANGE)
            for k in range(2):
                self.use(G_BOUND_INT if self.take("int", "ident")[0] == "int" else G_BOUND_NAME)
                if k == 0:
                    self.take("..")
        else:
            self.use(G_PARAM)
            rows = self.type()
            if rows >= 2:
                self.use("entry: a parameter of rows ([2^b][2^r]t)")
            if self.at("ident") and self.peek()[1] == "pad":
                self.take("ident")
                self.use(group(G_PARAM, PAD_GROUP))
                self.pad()
                if self.at(","):
                    self.take(",")
                    self.take("ident")
                    self.take("ident")
                    self.take("ident")
                    self.use("entry: segments (7.3)")
        self.take(")")

    def pad(self):
        """The pad's forms of 7.1: max, min, a literal, a tuple of them."""
        start = self.pos
        self.expr()
        texts = [t for _, t, _ in self.toks[start:self.pos]]
        if texts[0] == "(" and "," in texts:
            self.use("entry: a pad of a tuple")
        for t, form in (("max", "max"), ("min", "min")):
            if t in texts:
                self.use("entry: a pad of %s" % form)
        if any(k in ("int", "float", "keyword") for k, _, _ in self.toks[start:self.pos]):
            self.use("entry: a pad of a literal")

    def type(self):
        """Parses a type; returns how many array dimensions it has."""
        if self.at("["):
            self.take("[")
            self.expr()
            self.take("]")
            self.use(G_TYPE_ARRAY)
            return 1 + self.type()
        if self.at("("):
            self.take("(")
            self.type()
            if self.at(","):
                self.use(G_TYPE_TUPLE)
                count = 1
                while self.at(","):
                    self.take(",")
                    self.type()
                    count += 1
                if count > 2:
                    self.use(group(G_TYPE_TUPLE, '{ "," type }'))
            else:
                self.use(G_TYPE_PAREN)
            self.take(")")
            return 0
        self.take("ident")
        self.use(G_TYPE_NAME)
        return 0

    def pat(self):
        if self.at("int"):
            self.take("int")
            self.use(G_PAT_INT)
        elif self.at("ident") and self.peek()[1] != "_":
            self.take("ident")
            self.use(G_PAT_NAME)
        else:
            self.use(G_PAT_C)
            self.cpat()

    def cpat(self):
        if self.at("ident") and self.peek()[1] == "_":
            self.take("ident")
            self.use(G_WILD)
        elif self.at("["):
            self.take("[")
            self.pat()
            self.use(G_PAT_LIST)
            if self.at(","):
                self.use(group(G_PAT_LIST, '{ "," pat }'))
            while self.at(","):
                self.take(",")
                self.pat()
            self.take("]")
        else:
            self.take("(")
            self.pat()
            count = 1
            while self.at(","):
                self.take(",")
                self.pat()
                count += 1
            self.take(")")
            self.use(G_PAT_PAREN if count == 1 else G_PAT_TUPLE)
            if count > 2:
                self.use(group(G_PAT_TUPLE, '{ "," pat }'))

    def expr(self):
        if self.at("\\"):
            self.take("\\")
            self.use(G_LAMBDA)
            self.pat()
            if not self.at("->"):
                self.use(group(G_LAMBDA, "{ pat }"))
            while not self.at("->"):
                self.pat()
            self.take("->")
            self.expr()
        elif self.at("if"):
            self.use(G_IF)
            for word in ("if", "then", "else"):
                self.take(word)
                self.expr()
        elif self.at("let"):
            self.take("let")
            if self.at("ident") and self.peek()[1] != "_":
                self.take("ident")
                self.use(G_LET)
                if not self.at("="):
                    self.use(group(G_LET, "{ pat }"))
                while not self.at("="):
                    self.pat()
            else:
                self.use(G_LET_C)
                self.cpat()
            self.take("=")
            self.expr()
            self.take("in")
            self.expr()
        else:
            self.use(G_BEXPR)
            self.bexpr(0)

    def binary_level(self):
        kind, text, _ = self.peek()
        for level, ops in enumerate(BINARY_LEVELS):
            if text in ops and kind != "ident":
                return level
        return None

    def bexpr(self, level):
        """Operators of BINARY_LEVELS[level:] and tighter ones."""
        self.use(G_BEXPR_UNARY)
        self.unary()
        while True:
            got = self.binary_level()
            if got is None or got < level:
                return
            op = self.take(self.peek()[0])[1]
            self.use(G_BINARY, "operator: binary %s" % op)
            self.bexpr(got + 1)
            if got == 2 and self.binary_level() == 2:
                raise Syntax("chained comparison")

    def sign(self, minus, bang):
        """A prefix '-' or '!' and the unary it applies to."""
        op = self.take(self.peek()[0])[1]
        self.use(minus if op == "-" else bang, "operator: unary %s" % op)
        self.unary()

    def unary(self):
        if self.at("-", "!"):
            self.sign(G_NEG, G_NOT)
            return
        self.use(G_UNARY_INDEX, G_INDEX_POWER)
        self.power()
        while self.at("!"):
            self.take("!")
            self.use(G_INDEX, "operator: binary !")
            self.operand()

    def operand(self):
        """The right operand of '!' or '^': a power, or one with a sign."""
        if self.at("-", "!"):
            self.sign(G_OPERAND_NEG, G_OPERAND_NOT)
        else:
            self.use(G_OPERAND_POWER)
            self.power()

    def power(self):
        self.app()
        if self.at("^"):
            self.take("^")
            self.use(G_POW, "operator: binary ^")
            self.operand()
        else:
            self.use(G_APP_ONLY)

    def app(self):
        self.atom()
        self.use(G_ATOM)
        while self.at(*ATOM_START) or self.at("true", "false"):
            self.atom()
            self.use(G_APPLY)

    def atom(self):
        kind, text, _ = self.peek()
        if kind in ("int", "float"):
            self.take(kind)
            self.use(G_INT if kind == "int" else G_FLOAT, "literal: " + literal_kind(text))
        elif kind == "keyword" and text in ("true", "false"):
            self.take(text)
            self.use(G_TRUE if text == "true" else G_FALSE)
        elif kind == "ident":
            self.take("ident")
            self.use(G_NAME, "name: " + text)
        elif kind == "(" and self.peek(1)[1] in OPNAMES and self.peek(2)[0] == ")":
            self.pos += 3
            self.use(G_SECTION, "section: (%s)" % self.toks[self.pos - 2][1])
        elif kind == "(":
            self.take("(")
            self.expr()
            count = 1
            while self.at(","):
                self.take(",")
                self.expr()
                count += 1
            self.take(")")
            self.use(G_PAREN if count == 1 else G_TUPLE)
            if count > 2:
                self.use(group(G_TUPLE, '{ "," expr }'))
        else:
            self.take("[")
            self.expr()
            self.use(G_LIST)
            if self.at(","):
                self.use(group(G_LIST, '{ "," expr }'))
            while self.at(","):
                self.take(",")
                self.expr()
            self.take("]")


def used(src):
    """The constructs that the program src uses; Syntax when it does not
    parse."""
    toks = tokens(src)
    out = set()
    for kind, text, _ in toks:
        if kind in ("keyword",):
            out.add("keyword: " + text)
        elif kind not in ("int", "float", "ident", "string"):
            out.add("token: " + text)
        elif kind == "string":
            out.add("literal: string")
    if toks and not toks[0][2]:
        raise Syntax("the first token is not in column 1")
    starts = [i for i, t in enumerate(toks) if t[2]] + [len(toks)]
    if len(starts) > 1:
        out.add(G_PROGRAM)
        out.add(group(G_PROGRAM, "[ decl { SEP decl } ]"))
    for a, b in zip(starts, starts[1:]):
        Parser(toks[a:b], out).decl()
    return out


# ---- the reference's constructs

def section(doc, heading):
    """The text of the part of doc from the heading line to the next
    heading of its level or above."""
    level = heading.split(" ")[0]
    m = re.search(r"^%s\n(.*?)(?=^#{1,%d} |\Z)" % (re.escape(heading), len(level)), doc, re.S | re.M)
    if not m:
        sys.exit("constructs.py: docs/language.md has no heading %r" % heading)
    return m.group(1)


def spans(text):
    """The code spans of markdown text."""
    return re.findall(r"`([^`]+)`", text)


def bullet(doc, name):
    m = re.search(r"^- \*\*%s\*\*:(.*?)(?=^- |\n\n)" % re.escape(name), doc, re.S | re.M)
    if not m:
        sys.exit("constructs.py: docs/language.md section 1 has no bullet %r" % name)
    return m.group(1)


def first_sentence(text):
    return re.split(r"\.\s+(?=[A-Z`])", text, 1)[0]


def grammar_constructs(doc):
    """The alternatives of the EBNF of section 2, the groups in them, and the
    operator sections; exits naming an alternative this parser does not
    recognise."""
    block = re.search(r"```\n(.*?)```", section(doc, "## 2. Grammar"), re.S).group(1)
    rules, lhs = [], None
    for line in block.splitlines():
        line = re.sub(r'\s*--(?=(?:[^"]*"[^"]*")*[^"]*$).*', "", line)     # a comment outside quotes
        m = re.match(r"^(\w+)\s*::=(.*)", line)
        if m:
            lhs, line = m.group(1), m.group(2)
        elif not line.strip():
            continue
        rules += [(lhs, alt) for alt in split_alternatives(line)]
    out, unknown = set(), []
    for lhs, alt in rules:
        alt = " ".join(re.findall(r'"[^"]*"|\S+', alt))
        if lhs == "OPNAME":
            out.add("section: (%s)" % alt.strip('"'))
            continue
        key = "%s ::= %s" % (lhs, alt)
        if key not in RECOGNISED:
            unknown.append(key)
        out.add(key)
        out.update(group(key, g) for g in groups(alt))
    return out, unknown


def split_alternatives(line):
    """The alternatives of a rule's line, split at `|` outside quotes."""
    parts = re.findall(r'"[^"]*"|\||[^"|]+', line)
    alts, cur = [], ""
    for p in parts:
        if p == "|":
            alts.append(cur)
            cur = ""
        else:
            cur += p
    alts.append(cur)
    return [a.strip() for a in alts if a.strip()]


def groups(alt):
    """The outermost optional `[ ]` and repeated `{ }` groups of alt."""
    words = re.findall(r'"[^"]*"|\S+', alt)
    out, depth, start = [], 0, 0
    for i, w in enumerate(words):
        if w in ("[", "{"):
            if depth == 0:
                start = i
            depth += 1
        elif w in ("]", "}"):
            depth -= 1
            if depth == 0:
                out.append(" ".join(words[start:i + 1]))
    return out


def operator_constructs(doc):
    """The binary and unary operators of the precedence table."""
    table = section(doc, "### Precedence")
    out = set()
    for row in re.findall(r"^\| *(\d+) *\|(.*)\|.*\|$", table, re.M):
        level, ops = int(row[0]), row[1].replace("\\|", "|")
        if level in (1, 14):    # lambdas, if, let, application: grammar alternatives
            continue
        words = [w for s in spans(ops) for w in s.split() if w == "xor" or not re.match(r"^\w", w)]
        out.update(("operator: unary %s" if "unary" in ops else "operator: binary %s") % w for w in words)
    return out


def builtin_names(doc):
    """The built-ins that the tables of section 6 name: the first word of
    each form in a table's first column (a form of names alone, such as the
    conversions' `bool i8 ...`, names them all; `xs ! k` names an operator)."""
    text = section(doc, "## 6. Built-in functions and combinators")
    names = set()
    for row in re.findall(r"^\| *(`.*?) *\|", text, re.M):
        for span in spans(row):
            words = span.split()
            if len(words) > 1 and not re.match(r"^[A-Za-z_(\[]", words[1]):
                continue     # an operator between operands: 'xs ! k'
            if all(w in ELEMENT_TYPES for w in words):
                names.update(words)
            else:
                names.add(words[0])
    return names


ELEMENT_TYPES = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"}


def compiler_builtins(builtins_c):
    with open(builtins_c) as f:
        text = f.read()
    table = re.search(r"static const Builtin builtins\[\] = \{(.*?)\n\};", text, re.S)
    return set(re.findall(r'\{"(\w+)", \d+, b_\w+\}', table.group(1)))


def doc_constructs(doc, builtins_c):
    """(the constructs, the errors: what the reference and the compiler or
    this parser disagree on)."""
    errors = []
    lexical = section(doc, "## 1. Lexical syntax")
    out = set()
    keywords = spans(bullet(lexical, "Keywords"))[0].split()
    if set(keywords) != KEYWORDS:
        errors.append("the keywords of docs/language.md (%s) are not constructs.py's" % " ".join(keywords))
    out.update("keyword: " + k for k in keywords)
    out.update("token: " + t for t in spans(bullet(lexical, "Operators and punctuation"))[0].split()
               if t not in KEYWORDS)
    for name in ("Integers", "Floating-point numbers"):
        out.update("literal: " + literal_kind(s) for s in spans(first_sentence(bullet(lexical, name))))
    out.add("literal: string")
    grammar, unknown = grammar_constructs(doc)
    errors += ["the grammar's alternative `%s` is not one that constructs.py recognises" % a for a in unknown]
    out |= grammar | operator_constructs(doc)
    documented, compiled = builtin_names(doc), compiler_builtins(builtins_c)
    errors += ["the built-in '%s' of compiler/specialise/builtins.c is not in the tables of docs/language.md" % b
               for b in sorted(compiled - documented)]
    errors += ["docs/language.md documents a built-in '%s' that compiler/specialise/builtins.c does not have" % b
               for b in sorted(documented - compiled)]
    out.update("name: " + b for b in documented | compiled)
    out.update("entry: " + e for e in ("a parameter of rows ([2^b][2^r]t)", "a pad of max", "a pad of min",
                                       "a pad of a literal", "a pad of a tuple",
                                       "segments (7.3)"))
    return out, errors


def files_of(paths):
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if os.path.isfile(os.path.join(p, name)):
                    yield os.path.join(p, name)
        else:
            yield p


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--used":
        with open(args[1], encoding="utf-8", errors="replace") as f:
            print("\n".join(sorted(used(f.read()))))
        return
    what = "the programs"
    if len(args) >= 2 and args[0] == "--what":
        what, args = args[1], args[2:]
    if len(args) < 3:
        sys.exit("usage: constructs.py [--what NAME] LANGUAGE_MD BUILTINS_C FILE_OR_DIR...\n"
                 "       constructs.py --used FILE")
    with open(args[0]) as f:
        required, errors = doc_constructs(f.read(), args[1])
    seen, parsed, skipped = set(), 0, 0
    for path in files_of(args[2:]):
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read()
        try:
            seen |= used(src)
            parsed += 1
        except (Syntax, RecursionError):
            skipped += 1
    for e in errors:
        print("constructs.py: " + e)
    missing = sorted(required - seen - NEVER_WELL_TYPED)
    for c in missing:
        print("constructs.py: %s does not use: %s" % (what, c))
    print("constructs.py: %s: %d files parsed, %d left out (not the grammar's), %d of %d constructs used"
          % (what, parsed, skipped, len(required & seen), len(required)))
    sys.exit(1 if missing or errors else 0)


main()
