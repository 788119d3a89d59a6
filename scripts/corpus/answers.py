#!/usr/bin/env python3
"""Rebuild the JSON answers of tests/corpus/llvm from the .ll/.ptx files and opt-14's printers.

usage:
  answers.py cfg X.ll  --domloops X.domloops.txt --cfgsccs X.cfgsccs.txt -o X.cfg.json
  answers.py lcg X.ll  --lcg X.lcg.txt [--cgsccs X.cgsccs.txt]           -o X.lcg.json
  answers.py ptx X.ptx                                                   -o X.ptx.cfg.json
  answers.py compare A.json B.json        # field-by-field comparison of two answers
                                          # (exit status 1 when they differ)

Every input may be gzipped (name ending in .gz); every output is written plain (the caller
gzips). Output is compact JSON with a trailing newline. The fields are described in
tests/corpus/README.md; where a field comes from:

X.cfg.json (format cfg-oracle-1)
  blocks, term, succ, call-site counts   parsed from the .ll
  idom, unreachable                      opt-14 print<domtree>
  loops                                  opt-14 print<loops> (parallel_annotated: its
                                         "Parallel Loop" lines)
  cfg_sccs                               opt-14 -print-cfg-sccs (non-trivial ones)
  rpo, dfs_back_edges, dom_back_edges    a replica of LLVM's po_iterator (iterative DFS,
                                         successors in `succ` order)
  checks                                 the printers against networkx and against the
                                         Python loop finder used for PTX
X.lcg.json (format lcg-oracle-1)
  nodes[].edges, postorder_refsccs       opt-14 -passes=print-lcg
  entry_roots                            a replica of LazyCallGraph's constructor
  legacy_callgraph_sccs                  opt-14 -print-callgraph-sccs (null without it;
                                         the nvptx answers have none)
  checks                                 a replica of LazyCallGraph (edge discovery and
                                         Tarjan post-order) against the printer, networkx
X.ptx.cfg.json (format ptx-cfg-oracle-1)
  everything from a PTX parser plus networkx; loops from the Python loop finder.
"""
import argparse
import collections
import gzip
import json
import re
import sys

import networkx as nx


# ----------------------------------------------------------------------------------------
# small helpers

def read_text(path):
    if path.endswith('.gz'):
        with gzip.open(path, 'rt', encoding='utf-8', errors='surrogateescape') as f:
            return f.read()
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return f.read()


def source_name(path):
    name = path.rsplit('/', 1)[-1]
    return name[:-3] if name.endswith('.gz') else name


def write_json(obj, path):
    text = json.dumps(obj, separators=(',', ':')) + '\n'
    if path == '-':
        sys.stdout.write(text)
    else:
        with open(path, 'w') as f:
            f.write(text)


# ----------------------------------------------------------------------------------------
# CFG algorithms shared by the LLVM and PTX answers. A CFG is `succ`: one list of successor
# indices per block, block 0 the entry, duplicates kept.

def llvm_dfs(succ):
    """Replica of LLVM's po_iterator from block 0 (iterative DFS, children in succ order,
    a child is entered the first time it is seen). Returns (postorder, back_edges): the
    back edges are the edges u->v met while v is on the DFS stack, in the order met."""
    n = len(succ)
    visited = [False] * n
    on_stack = [False] * n
    post = []
    back = []
    if n == 0:
        return post, back
    visited[0] = True
    on_stack[0] = True
    stack = [(0, 0)]
    while stack:
        node, i = stack[-1]
        if i < len(succ[node]):
            stack[-1] = (node, i + 1)
            child = succ[node][i]
            if not visited[child]:
                visited[child] = True
                on_stack[child] = True
                stack.append((child, 0))
            elif on_stack[child]:
                back.append([node, child])
        else:
            stack.pop()
            on_stack[node] = False
            post.append(node)
    return post, back


def nx_graph(succ):
    g = nx.DiGraph()
    g.add_nodes_from(range(len(succ)))
    for u, ss in enumerate(succ):
        for v in ss:
            g.add_edge(u, v)
    return g


def nx_idom(succ):
    """Immediate dominators by networkx (Cooper-Harvey-Kennedy): -1 for the entry, None for
    blocks unreachable from the entry."""
    idom = [None] * len(succ)
    if not succ:
        return idom
    d = nx.immediate_dominators(nx_graph(succ), 0)
    for v, p in d.items():
        idom[v] = p
    idom[0] = -1      # networkx maps the start to itself (older) or leaves it out (3.5+)
    return idom


def dominates(idom, a, b):
    """a dominates b (both reachable)."""
    while b is not None and b != -1:
        if b == a:
            return True
        b = idom[b]
    return False


def dom_back_edges(idom, back):
    return [e for e in back if dominates(idom, e[1], e[0])]


def python_loops(succ, idom, post):
    """The Python loop finder: LLVM LoopInfo's algorithm (natural loops of the dominance back
    edges discovered in dominator-tree post-order, then blocks filled in by a CFG post-order
    walk: a loop's blocks are its header, then the others in reverse post-order). Loops are
    listed by depth, then by their header's position in reverse post-order; `parent` is an
    index into that list; latches and exiting blocks in index order."""
    n = len(succ)
    preds = [[] for _ in range(n)]
    for u, ss in enumerate(succ):
        for v in ss:
            preds[v].append(u)
    reach = [idom[i] is not None for i in range(n)]
    # discover loops: headers in dominator-tree post-order, as LoopInfoBase::analyze does
    children = [[] for _ in range(n)]
    for v in range(n):
        if idom[v] is not None and idom[v] != -1:
            children[idom[v]].append(v)
    dt_post = []
    if n:
        st = [(0, 0)]
        while st:
            v, i = st[-1]
            if i < len(children[v]):
                st[-1] = (v, i + 1)
                st.append((children[v][i], 0))
            else:
                st.pop()
                dt_post.append(v)
    loop_of = [None] * n      # innermost loop (index into `found`) of each block
    found = []                # dicts: header, parent, blockset
    for h in dt_post:
        backedges = [p for p in preds[h] if reach[p] and dominates(idom, h, p)]
        if not backedges:
            continue
        li = len(found)
        found.append({'header': h, 'parent': None, 'set': set()})
        work = list(backedges)
        while work:
            b = work.pop()
            sub = loop_of[b]
            if sub is None:
                loop_of[b] = li
                if b == h:
                    continue
                for p in preds[b]:
                    if reach[p]:
                        work.append(p)
            else:
                while found[sub]['parent'] is not None:
                    sub = found[sub]['parent']
                if sub == li:
                    continue
                found[sub]['parent'] = li
                sh = found[sub]['header']
                for p in preds[sh]:
                    if reach[p] and loop_of[p] != sub:
                        work.append(p)
    # populate blocks and sub-loop order with a forward DFS post-order (PopulateLoopsDFS)
    blocks = [[f['header']] for f in found]
    for b in post:
        lp = loop_of[b]
        if lp is not None and found[lp]['header'] == b:
            blocks[lp][1:] = blocks[lp][1:][::-1]
            lp = found[lp]['parent']
        while lp is not None:
            blocks[lp].append(b)
            lp = found[lp]['parent']
    # order: by depth, then by the header's position in reverse post-order
    rpo_pos = {b: i for i, b in enumerate(post[::-1])}

    def depth(li):
        d = 1
        while found[li]['parent'] is not None:
            li = found[li]['parent']
            d += 1
        return d
    order = sorted(range(len(found)), key=lambda li: (depth(li), rpo_pos[found[li]['header']]))
    where = {li: i for i, li in enumerate(order)}
    out = []
    for li in order:
        bl = blocks[li]
        bset = set(bl)
        h = found[li]['header']
        par = found[li]['parent']
        out.append({'header': h, 'depth': depth(li), 'parent': -1 if par is None else where[par],
                    'blocks': bl,
                    'latches': sorted(b for b in bl if h in succ[b]),
                    'exiting': sorted(b for b in bl if any(x not in bset for x in succ[b]))})
    return out


def nx_sccs(succ, reachable):
    """Non-trivial SCCs (more than one block, or a self loop) of the reachable blocks."""
    g = nx_graph(succ).subgraph([i for i in range(len(succ)) if reachable[i]])
    out = []
    for c in nx.strongly_connected_components(g):
        if len(c) > 1 or any(v in succ[v] for v in c):
            out.append(sorted(c))
    return out


# ----------------------------------------------------------------------------------------
# PTX

PTX_FUNC_RE = re.compile(r'^(?:\.(?:visible|weak|extern)\s+)*\.(func|entry)\b')
PTX_LABEL_RE = re.compile(r'^\s*([$%\w.]+):(.*)$')
PTX_PROTO_RE = re.compile(r'^[$\w]+\s*:\s*\.callprototype\b')
PTX_MBB_RE = re.compile(r'^\s*//\s*%bb\.(\d+):')
PTX_LABEL_MBB_RE = re.compile(r'BB\d+_(\d+)$')


def ptx_functions(text):
    """Yield (kind, name, body_lines) for every PTX function with a body."""
    lines = text.split('\n')
    i = 0
    n = len(lines)
    while i < n:
        m = PTX_FUNC_RE.match(lines[i])
        if not m:
            i += 1
            continue
        kind = m.group(1)
        # header up to the body's '{' or to the ';' of a prototype
        head = []
        j = i
        body_start = None
        while j < n:
            s = lines[j].split('//', 1)[0]
            if s.strip() == '{':
                body_start = j + 1
                break
            head.append(s)
            if s.rstrip().endswith(';'):
                break
            j += 1
        if body_start is None:
            i = j + 1
            continue
        h = ' '.join(head)
        h = re.sub(r'\([^()]*\)', ' ', h)          # drop the parameter lists
        toks = [t for t in h.split() if not t.startswith('.')]
        name = toks[0] if toks else '?'
        k = body_start
        while k < n and lines[k] != '}':
            k += 1
        yield kind, name, lines[body_start:k]
        i = k + 1


def ptx_cfg(body):
    """Blocks of one PTX function body (see the README for the rules)."""
    blocks = []   # dicts: name, label, mbb, insts (statements), merged
    cur = None
    pending_mbb = None
    buf = ''

    def new_block(label):
        nonlocal cur, pending_mbb
        mbb = None
        if label is not None:
            m = PTX_LABEL_MBB_RE.search(label)
            mbb = int(m.group(1)) if m else None
        elif pending_mbb is not None:
            mbb = pending_mbb
        pending_mbb = None
        cur = {'label': label, 'mbb': mbb, 'insts': [], 'merged': False}
        blocks.append(cur)

    def statement(st):
        nonlocal cur
        st = st.strip()
        if not st or st.startswith('.') or PTX_PROTO_RE.match(st):
            return
        if cur is None:
            new_block(None)
        cur['insts'].append(st)
        if ptx_is_terminator(st):
            cur = None

    for line in body:
        m = PTX_MBB_RE.match(line)
        if m:
            if cur is None:
                pending_mbb = int(m.group(1))
            else:
                cur['merged'] = True
            continue
        s = line.split('//', 1)[0]
        if not buf.strip():
            m = PTX_LABEL_RE.match(s)
            if m and not s.strip().startswith('.'):
                new_block(m.group(1))
                s = m.group(2)
        s = s.replace('{', ' ').replace('}', ' ')
        buf += ' ' + s
        while ';' in buf:
            st, buf = buf.split(';', 1)
            statement(st)
    return blocks


PTX_GUARD_RE = re.compile(r'^@!?%?[\w$]+\s+')


def ptx_opcode(st):
    guarded = bool(PTX_GUARD_RE.match(st))
    rest = PTX_GUARD_RE.sub('', st, count=1) if guarded else st
    op = rest.split(None, 1)[0] if rest.split() else ''
    return guarded, op, rest


def ptx_is_terminator(st):
    _, op, _ = ptx_opcode(st)
    base = op.split('.', 1)[0]
    return base in ('bra', 'ret', 'exit', 'trap') or op.startswith('brx.idx')


def ptx_answer(path):
    text = read_text(path)
    funcs = []
    stats = collections.OrderedDict()
    terms = collections.Counter()
    tot = collections.Counter()
    for kind, fname, body in ptx_functions(text):
        blocks = ptx_cfg(body)
        names = []
        for i, b in enumerate(blocks):
            names.append(b['label'] if b['label'] is not None else '%s@%d' % (fname, i))
        index = {b['label']: i for i, b in enumerate(blocks) if b['label'] is not None}
        succ = []
        term = []
        calls = []
        for i, b in enumerate(blocks):
            nxt = [i + 1] if i + 1 < len(blocks) else []
            last = b['insts'][-1] if b['insts'] else ''
            guarded, op, rest = ptx_opcode(last)
            base = op.split('.', 1)[0]
            if last and ptx_is_terminator(last):
                t = ('@' if guarded else '') + ('brx.idx' if op.startswith('brx.idx') else base)
                if base == 'bra':
                    target = rest.split(None, 1)[1].strip().rstrip(',')
                    s = [index[target]]
                elif op.startswith('brx.idx'):
                    lst = rest.split(',')[-1].strip()
                    s = ptx_branch_targets(body, lst, index)
                else:
                    s = []
                if guarded:
                    s = s + nxt
            else:
                t = 'fallthrough'
                s = nxt
            succ.append(s)
            term.append(t)
            for st in b['insts']:
                g, op2, rest2 = ptx_opcode(st)
                if op2.split('.', 1)[0] == 'call':
                    calls.append(ptx_callee(rest2))
        post, back = llvm_dfs(succ)
        idom = nx_idom(succ)
        reach = [x is not None for x in idom]
        loops = python_loops(succ, idom, post)
        dback = dom_back_edges(idom, back)
        f = collections.OrderedDict()
        f['name'] = fname
        f['kind'] = kind
        f['blocks'] = names
        f['term'] = term
        f['succ'] = succ
        f['llvm_mbb'] = [b['mbb'] for b in blocks]
        f['ninsts'] = [len(b['insts']) for b in blocks]
        f['idom'] = idom
        f['unreachable'] = [i for i in range(len(blocks)) if not reach[i]]
        f['loops'] = [{'header': l['header'], 'depth': l['depth'], 'parent': l['parent'],
                       'blocks': l['blocks'], 'latches': l['latches']} for l in loops]
        f['rpo'] = post[::-1]
        f['dfs_back_edges'] = back
        f['dom_back_edges'] = dback
        f['irreducible'] = sorted(map(tuple, back)) != sorted(map(tuple, dback))
        f['cfg_sccs'] = rpo_sorted_sccs(nx_sccs(succ, reach), post)
        f['calls'] = calls
        funcs.append(f)
        terms.update(term)
        tot['blocks'] += len(blocks)
        tot['edges'] += sum(len(s) for s in succ)
        tot['instructions'] += sum(f['ninsts'])
        tot['unreachable'] += len(f['unreachable'])
        tot['loops'] += len(loops)
        tot['merged'] += sum(1 for b in blocks if b['merged'])
        tot['no_mbb'] += sum(1 for b in blocks if b['mbb'] is None)
    stats['functions'] = len(funcs)
    stats['entry_functions'] = sum(1 for f in funcs if f['kind'] == 'entry')
    stats['blocks'] = tot['blocks']
    stats['edges'] = tot['edges']
    stats['instructions'] = tot['instructions']
    stats['unreachable_blocks'] = tot['unreachable']
    stats['loops'] = tot['loops']
    stats['max_loop_depth'] = max([l['depth'] for f in funcs for l in f['loops']], default=0)
    stats['irreducible_functions'] = sum(1 for f in funcs if f['irreducible'])
    stats['nontrivial_cfg_sccs'] = sum(len(f['cfg_sccs']) for f in funcs)
    stats['max_cfg_scc'] = max([len(c) for f in funcs for c in f['cfg_sccs']], default=0)
    stats['calls_direct'] = sum(1 for f in funcs for c in f['calls'] if c is not None)
    stats['calls_indirect'] = sum(1 for f in funcs for c in f['calls'] if c is None)
    stats['terminators'] = dict(terms)
    stats['blocks_without_llvm_mbb'] = tot['no_mbb']
    stats['blocks_with_merged_mbbs'] = tot['merged']
    stats['max_blocks_in_function'] = max([len(f['blocks']) for f in funcs], default=0)
    out = collections.OrderedDict()
    out['format'] = 'ptx-cfg-oracle-1'
    out['source'] = source_name(path)
    out['oracle'] = 'python parser + networkx (immediate_dominators = Cooper-Harvey-Kennedy)'
    out['stats'] = stats
    out['functions'] = funcs
    return out


def ptx_branch_targets(body, name, index):
    text = ' '.join(l.split('//', 1)[0] for l in body)
    m = re.search(re.escape(name) + r'\s*:\s*\.branchtargets([^;]*);', text)
    if not m:
        return []
    return [index[t.strip()] for t in m.group(1).split(',') if t.strip()]


def ptx_callee(rest):
    """The callee of a PTX call statement; None for an indirect call."""
    s = rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else ''
    s = s.strip()
    if s.startswith('('):           # return parameters
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == '('
            depth -= ch == ')'
            if depth == 0:
                s = s[i + 1:].lstrip().lstrip(',').strip()
                break
    callee = re.split(r'[\s,(]', s, 1)[0]
    return None if callee.startswith('%') else callee


def rpo_sorted_sccs(sccs, post):
    """SCCs with their blocks in reverse post-order, ordered by their first block."""
    pos = {b: i for i, b in enumerate(post[::-1])}
    out = [sorted(c, key=pos.__getitem__) for c in sccs]
    return sorted(out, key=lambda c: pos[c[0]])


# ----------------------------------------------------------------------------------------
# LLVM IR (textual, as LLVM 14 prints it)

IR_TOKEN_RE = re.compile(r"""
    (?P<str>c?"[^"]*")
  | (?P<name>[@%!]"[^"]*"|[@%!][-\w$.]+|\#\d+)
  | (?P<open>\(|\[|<\{|\{|<)
  | (?P<close>\)|\]|\}>|\}|>)
  | (?P<comma>,)
  | (?P<eq>=)
  | (?P<word>[^\s,()\[\]{}<>"=]+)
    """, re.X)
CLOSER = {'(': ')', '[': ']', '{': '}', '<{': '}>', '<': '>'}


def ir_tokens(text):
    """Tokens of one IR statement: ('w', text) words and names, ('s', text) strings,
    (',',) commas, ('=',), and ('g', opener, [tokens]) bracketed groups."""
    root = []
    stack = [root]
    openers = []
    for m in IR_TOKEN_RE.finditer(text):
        kind = m.lastgroup
        t = m.group()
        if kind == 'str':
            stack[-1].append(('s', t))
        elif kind in ('name', 'word'):
            stack[-1].append(('w', t))
        elif kind == 'open':
            g = ('g', t, [])
            stack[-1].append(g)
            stack.append(g[2])
            openers.append(t)
        elif kind == 'close':
            if openers and CLOSER[openers[-1]] == t:
                openers.pop()
                stack.pop()
        elif kind == 'comma':
            stack[-1].append((',',))
        else:
            stack[-1].append(('=',))
    return root


def tok_text(toks):
    out = []
    for t in toks:
        if t[0] == 'g':
            out.append(t[1] + ' ' + tok_text(t[2]) + ' ' + CLOSER[t[1]])
        elif t[0] in ('w', 's'):
            out.append(t[1])
        else:
            out.append(t[0])
    return ' '.join(out)


def split_commas(toks):
    parts = [[]]
    for t in toks:
        if t[0] == ',':
            parts.append([])
        else:
            parts[-1].append(t)
    return parts


def unquote(name):
    """'@"a b"' -> 'a b', '%x' -> 'x'."""
    name = name[1:]
    if name.startswith('"') and name.endswith('"'):
        name = re.sub(r'\\([0-9A-Fa-f]{2})', lambda m: chr(int(m.group(1), 16)), name[1:-1])
    return name


CONSTEXPR_OPS = {
    'bitcast', 'getelementptr', 'ptrtoint', 'inttoptr', 'addrspacecast', 'trunc', 'zext',
    'sext', 'fptrunc', 'fpext', 'fptoui', 'fptosi', 'uitofp', 'sitofp', 'select', 'icmp',
    'fcmp', 'add', 'sub', 'mul', 'shl', 'lshr', 'ashr', 'and', 'or', 'xor', 'udiv', 'sdiv',
    'urem', 'srem', 'fadd', 'fsub', 'fmul', 'fdiv', 'frem', 'fneg', 'extractelement',
    'insertelement', 'shufflevector', 'extractvalue', 'insertvalue'}
CONSTEXPR_FLAGS = {
    'inbounds', 'nuw', 'nsw', 'exact', 'eq', 'ne', 'ugt', 'uge', 'ult', 'ule', 'sgt', 'sge',
    'slt', 'sle', 'oeq', 'ogt', 'oge', 'olt', 'ole', 'one', 'ord', 'ueq', 'une', 'uno',
    'true', 'false'}
TRAILING_WORDS = {'unordered', 'monotonic', 'acquire', 'release', 'acq_rel', 'seq_cst',
                  'volatile', 'weak'}


class Const:
    """A constant that mentions a global: kind 'global' (key '@name'), 'expr',
    'aggregate', or 'blockaddress'; `ops` are its operands of the same kind, in LLVM's
    operand order (operands without a global are left out: they reach no function)."""
    __slots__ = ('kind', 'key', 'ops')

    def __init__(self, kind, key, ops):
        self.kind = kind
        self.key = key
        self.ops = ops


def parse_value(toks):
    """The constant at the end of one operand's tokens (type, attributes, value), or None
    when that value mentions no global."""
    while toks and toks[-1][0] == 'w' and toks[-1][1] in TRAILING_WORDS:
        toks = toks[:-1]
    for i, t in enumerate(toks):             # cut `V to T` (casts)
        if t == ('w', 'to'):
            toks = toks[:i]
            break
    if not toks:
        return None
    last = toks[-1]
    if last[0] == 'w':
        if last[1].startswith('@'):
            return Const('global', '@' + unquote(last[1]), [])
        return None
    j = len(toks) - 2
    while j >= 0 and toks[j][0] == 'w' and toks[j][1] in CONSTEXPR_FLAGS:
        j -= 1
    if last[0] != 'g' or '@' not in tok_text([last]):
        return None
    if j >= 0 and toks[j] == ('w', 'blockaddress'):
        return Const('blockaddress', tok_text(toks[j:]), [])
    if last[1] == '(':
        if j >= 0 and toks[j][0] == 'w' and toks[j][1] in CONSTEXPR_OPS:
            ops = [parse_value(e) for e in split_commas(last[2])]
            return Const('expr', tok_text(toks[j:]), [o for o in ops if o is not None])
        return None
    ops = [parse_value(e) for e in split_commas(last[2])]
    return Const('aggregate', tok_text(toks), [o for o in ops if o is not None])


class Block:
    __slots__ = ('name', 'insts')

    def __init__(self, name):
        self.name = name
        self.insts = []


class Function:
    def __init__(self, name, defined, local, header):
        self.name = name
        self.defined = defined
        self.local = local
        self.header = header
        self.blocks = []


class Module:
    def __init__(self):
        self.functions = []      # in module order, declarations too
        self.fmap = {}
        self.globals = []        # (name, initializer tokens or None), module order
        self.aliases = []        # (name, local, aliasee text)
        self.ident = None
        self.metadata = {}       # '!12' -> text


LABEL_RE = re.compile(r'^("(?:[^"]*)"|[-\w$.]+):(?:\s|$)')
INST_NAME_RE = re.compile(r'^\s*(?:%[-\w$.]+|%"[^"]*")\s*=\s*')
FUNC_NAME_RE = re.compile(r'@("[^"]*"|[-\w$.]+)\(')
LOCAL_LINKAGE = ('internal', 'private')


def parse_module(text):
    mod = Module()
    lines = text.split('\n')
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.startswith('define '):
            m = FUNC_NAME_RE.search(line)
            pre = line[:m.start()].split()
            f = Function(unquote('@' + m.group(1)), True,
                         any(w in LOCAL_LINKAGE for w in pre), line)
            i += 1
            cur = None
            while i < n and lines[i] != '}':
                l = lines[i]
                i += 1
                if not l.strip() or l.lstrip().startswith(';'):
                    continue
                lm = LABEL_RE.match(l)
                if lm:
                    cur = Block(lm.group(1).strip('"'))
                    f.blocks.append(cur)
                    continue
                if cur is None:
                    cur = Block(None)             # unnamed entry block
                    f.blocks.append(cur)
                if l.startswith('    ') or l.startswith('  ]'):
                    cur.insts[-1] += ' ' + l.strip()   # continuation (switch cases)
                else:
                    cur.insts.append(l.strip())
            if f.blocks and f.blocks[0].name is None:
                f.blocks[0].name = str(unnamed_args(line))
            mod.functions.append(f)
            mod.fmap[f.name] = f
        elif line.startswith('declare '):
            m = FUNC_NAME_RE.search(line)
            f = Function(unquote('@' + m.group(1)), False, False, line)
            mod.functions.append(f)
            mod.fmap[f.name] = f
        elif line.startswith('@'):
            name_tok, rest = line.split(' = ', 1) if ' = ' in line else (line, '')
            name = unquote(name_tok.strip())
            words = rest.split()
            if 'alias' in words[:8] or 'ifunc' in words[:8]:
                kw = 'alias' if 'alias' in words[:8] else 'ifunc'
                local = any(w in LOCAL_LINKAGE for w in words[:words.index(kw)])
                mod.aliases.append((name, local, rest.split(' ' + kw + ' ', 1)[1]))
            else:
                mod.globals.append((name, global_initializer(rest)))
        elif line.startswith('!'):
            mm = re.match(r'^(![-\w.]+) = (.*)$', line)
            if mm:
                mod.metadata[mm.group(1)] = mm.group(2)
        i += 1
    ident = mod.metadata.get('!llvm.ident')
    if ident:
        first = re.search(r'!\d+', ident)
        if first:
            v = re.search(r'version (\d+\.\d+\.\d+)', mod.metadata.get(first.group(), ''))
            mod.ident = v.group(1) if v else None
    return mod


def unnamed_args(header):
    """Number of unnamed arguments of a `define` line: the slot of an unnamed entry block."""
    m = FUNC_NAME_RE.search(header)
    toks = ir_tokens(header[m.end() - 1:])
    args = toks[0][2] if toks and toks[0][0] == 'g' else []
    k = 0
    for part in split_commas(args):
        if part and part[-1][0] == 'w' and re.match(r'^%\d+$', part[-1][1]):
            k += 1
    return k


GLOBAL_KW_RE = re.compile(r'(?:^|\s)(global|constant)\s')


def global_initializer(rest):
    """Initializer tokens of a global variable definition (None for a declaration, [] for
    an initializer that mentions no global)."""
    m = GLOBAL_KW_RE.search(rest)
    if not m:
        return None
    pre = rest[:m.start(1)].split()
    if 'external' in pre or 'extern_weak' in pre:
        return None
    body = rest[m.end():]
    if '@' not in body:
        return []
    parts = split_commas(ir_tokens(body))
    return parts[0] if parts else []


def inst_opcode(inst):
    s = INST_NAME_RE.sub('', inst, count=1)
    w = s.split(None, 2)
    op = w[0] if w else ''
    if op in ('tail', 'musttail', 'notail') and len(w) > 1:
        op = w[1]
    return op, s


LABEL_REF_RE = re.compile(r'label\s+%("[^"]*"|[-\w$.]+)')


def terminator_succ(inst):
    return [m.group(1).strip('"') for m in LABEL_REF_RE.finditer(inst)]


def strip_attachments(toks):
    """Drop `, !name !N` metadata attachments at the end of an instruction."""
    parts = split_commas(toks)
    while len(parts) > 1 and parts[-1] and parts[-1][0][0] == 'w' \
            and parts[-1][0][1].startswith('!'):
        parts.pop()
    out = []
    for k, p in enumerate(parts):
        if k:
            out.append((',',))
        out.extend(p)
    return out


def parse_call(toks):
    """(callee_kind, callee, args) of a call/invoke/callbr statement's tokens (without the
    result name): kind 'global' (callee = function name), 'local', 'expr' (callee = Const
    or None), 'asm'; args = the argument token lists."""
    toks = strip_attachments(toks)
    gi = None
    for k in range(len(toks) - 1, -1, -1):
        if toks[k][0] == 'g' and toks[k][1] == '(':
            gi = k
            break
    args = [a for a in split_commas(toks[gi][2]) if a] if gi is not None else []
    before = toks[:gi] if gi is not None else toks
    if any(t == ('w', 'asm') for t in before):
        return 'asm', None, args
    c = before[-1] if before else None
    if c and c[0] == 'w' and c[1].startswith('@'):
        return 'global', unquote(c[1]), args
    if c and c[0] == 'w' and c[1].startswith('%'):
        return 'local', None, args
    return 'expr', parse_value(before), args


def inst_constants(inst):
    """(constants, call): the constant operands of one instruction that mention a global,
    in LLVM's operand order (a call's callee last), and (callee_kind, callee) for a
    call/invoke/callbr (None otherwise)."""
    op, body = inst_opcode(inst)
    if op in ('call', 'invoke', 'callbr'):
        kind, callee, args = parse_call(ir_tokens(body))
        consts = [parse_value(a) for a in args] if '@' in body else []
        if kind == 'global':
            consts.append(Const('global', '@' + callee, []))
        elif kind == 'expr':
            consts.append(callee)
        return [c for c in consts if c is not None], (kind, callee)
    if '@' not in body:
        return [], None
    toks = strip_attachments(ir_tokens(body))[1:]      # without the opcode
    if op == 'phi':
        vals = [parse_value(split_commas(t[2])[0]) for t in toks if t[0] == 'g' and t[1] == '[']
    else:
        vals = [parse_value(e) for e in split_commas(toks)]
    return [c for c in vals if c is not None], None


# ----------------------------------------------------------------------------------------
# opt-14 printer outputs

DT_NODE_RE = re.compile(r'^(\s*)\[(\d+)\] %("[^"]*"|\S+) \{')
LOOP_RE = re.compile(r'^(\s*)(Parallel )?Loop at depth (\d+) containing: (.*)$')
LOOP_BLOCK_RE = re.compile(r'^%("[^"]*"|[^<]+)((?:<\w+>)*)$')


def parse_domloops(text):
    """{function: {'idom': {block: parent or None}, 'root': block, 'loops': [...]}} from
    `opt -passes='function(print<domtree>,print<loops>)'`."""
    out = collections.OrderedDict()
    cur = None
    stack = []
    for line in text.split('\n'):
        if line.startswith('DominatorTree for function: '):
            cur = {'idom': collections.OrderedDict(), 'root': None, 'loops': []}
            out[line[len('DominatorTree for function: '):]] = cur
            stack = []
            continue
        if cur is None:
            continue
        m = DT_NODE_RE.match(line)
        if m:
            level = int(m.group(2))
            name = m.group(3).strip('"')
            del stack[level - 1:]
            cur['idom'][name] = stack[-1] if stack else None
            if not stack:
                cur['root'] = name
            stack.append(name)
            continue
        m = LOOP_RE.match(line)
        if m:
            blocks = []
            marks = []
            for item in m.group(4).split(','):
                bm = LOOP_BLOCK_RE.match(item.strip())
                blocks.append(bm.group(1).strip('"'))
                marks.append(bm.group(2))
            cur['loops'].append({'depth': int(m.group(3)), 'blocks': blocks, 'marks': marks,
                                 'parallel': bool(m.group(2))})
    return out


def parse_cfgsccs(text):
    """{function: [(blocks, self_loop)]} from `opt -enable-new-pm=0 -print-cfg-sccs`."""
    out = collections.OrderedDict()
    cur = None
    for line in text.split('\n'):
        m = re.match(r'^SCCs for Function (.*) in PostOrder:$', line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        m = re.match(r'^SCC #\d+ : (.*)$', line)
        if m and cur is not None:
            body = m.group(1)
            self_loop = body.endswith(' (Has self-loop).')
            if self_loop:
                body = body[:-len(' (Has self-loop).')]
            names = [x.strip()[1:].strip('"') for x in body.split(', ') if x.strip()]
            cur.append((names, self_loop))
    return out


def parse_cgsccs(text):
    """[{'functions': [...], 'self_loop': bool}] from `-print-callgraph-sccs`."""
    out = []
    for line in text.split('\n'):
        m = re.match(r'^SCC #\d+ : (.*)$', line)
        if m:
            body = m.group(1)
            self_loop = body.endswith(' (Has self-loop).')
            if self_loop:
                body = body[:-len(' (Has self-loop).')]
            out.append({'functions': [x.strip() for x in body.split(', ') if x.strip()],
                        'self_loop': self_loop})
    return out


def parse_lcg(text):
    """(nodes, postorder) from `opt -passes=print-lcg`: nodes = {function: [[callee, kind]]}
    in printed order; postorder = [[[function, ...] per SCC] per RefSCC]."""
    nodes = collections.OrderedDict()
    post = []
    cur = None
    for line in text.split('\n'):
        if line.startswith('  Edges in function: '):
            cur = nodes.setdefault(line[len('  Edges in function: '):], [])
            continue
        m = re.match(r'^    (call|ref)\s+-> (.*)$', line)
        if m and cur is not None:
            cur.append([m.group(2), m.group(1)])
            continue
        if line.startswith('  RefSCC with '):
            cur = None
            post.append([])
            continue
        if line.startswith('    SCC with '):
            post[-1].append([])
            continue
        if line.startswith('      ') and post and post[-1]:
            post[-1][-1].append(line[6:])
    return nodes, post


# ----------------------------------------------------------------------------------------
# X.cfg.json

def function_cfg(f):
    names = [b.name for b in f.blocks]
    index = {n: i for i, n in enumerate(names)}
    term = []
    succ = []
    for b in f.blocks:
        last = b.insts[-1] if b.insts else ''
        op, _ = inst_opcode(last)
        term.append(op)
        succ.append([index[s] for s in terminator_succ(last)])
    return names, index, term, succ


def loops_key(loops):
    """Order-insensitive form of a loop list, to compare the printer with the finder."""
    out = set()
    for l in loops:
        par = loops[l['parent']]['header'] if l['parent'] != -1 else -1
        out.add((l['header'], l['depth'], par, tuple(l['blocks']), tuple(sorted(l['latches'])),
                 tuple(sorted(l['exiting']))))
    return out


def cfg_answer(ll_path, domloops_path, cfgsccs_path, llvm_version=None):
    mod = parse_module(read_text(ll_path))
    dl = parse_domloops(read_text(domloops_path))
    cs = parse_cfgsccs(read_text(cfgsccs_path))
    checks = collections.OrderedDict((k, []) for k in (
        'idom_vs_networkx_mismatch', 'loops_vs_python_mismatch',
        'cfg_sccs_vs_networkx_mismatch', 'domtree_root_not_entry', 'domtree_unknown_block'))
    funcs = []
    terms = collections.Counter()
    st = collections.Counter()
    for f in mod.functions:
        if not f.defined:
            continue
        names, index, term, succ = function_cfg(f)
        n = len(names)
        post, back = llvm_dfs(succ)
        nxi = nx_idom(succ)
        d = dl.get(f.name)
        if d is None:
            st['missing'] += 1
            idom = nxi
            printed_loops = []
        else:
            idom = [None] * n
            unknown = False
            for b, p in d['idom'].items():
                if b not in index or (p is not None and p not in index):
                    unknown = True
                    continue
                idom[index[b]] = -1 if p is None else index[p]
            if unknown:
                checks['domtree_unknown_block'].append(f.name)
            if d['root'] != names[0]:
                checks['domtree_root_not_entry'].append(f.name)
            printed_loops = d['loops']
        if idom != nxi:
            checks['idom_vs_networkx_mismatch'].append(f.name)
        loops = []
        parents = []
        for pl in printed_loops:
            del parents[pl['depth'] - 1:]
            bl = [index[b] for b in pl['blocks']]
            lp = collections.OrderedDict()
            lp['header'] = bl[0]
            lp['depth'] = pl['depth']
            lp['parent'] = parents[-1] if parents else -1
            lp['blocks'] = bl
            lp['latches'] = [b for b, mk in zip(bl, pl['marks']) if '<latch>' in mk]
            lp['exiting'] = [b for b, mk in zip(bl, pl['marks']) if '<exiting>' in mk]
            lp['parallel_annotated'] = pl['parallel']
            parents.append(len(loops))
            loops.append(lp)
        reach = [x is not None for x in idom]
        if loops_key(loops) != loops_key(python_loops(succ, idom, post)):
            checks['loops_vs_python_mismatch'].append(f.name)
        sccs = [[index[b] for b in names_] for names_, self_loop in cs.get(f.name, [])
                if len(names_) > 1 or self_loop]
        if set(map(frozenset, sccs)) != set(map(frozenset, nx_sccs(succ, reach))):
            checks['cfg_sccs_vs_networkx_mismatch'].append(f.name)
        dback = dom_back_edges(idom, back)
        fo = collections.OrderedDict()
        fo['name'] = f.name
        fo['blocks'] = names
        fo['term'] = term
        fo['succ'] = succ
        fo['idom'] = idom
        fo['unreachable'] = [i for i in range(n) if not reach[i]]
        fo['loops'] = loops
        fo['rpo'] = post[::-1]
        fo['dfs_back_edges'] = back
        fo['dom_back_edges'] = dback
        fo['irreducible'] = sorted(map(tuple, back)) != sorted(map(tuple, dback))
        fo['cfg_sccs'] = sccs
        funcs.append(fo)
        terms.update(term)
        st['blocks'] += n
        st['edges'] += sum(len(s) for s in succ)
        st['unreachable'] += len(fo['unreachable'])
        st['numbered'] += sum(1 for x in names if x.isdigit())
        for b in f.blocks:
            st['instructions'] += len(b.insts)
            for inst in b.insts:
                op, body = inst_opcode(inst)
                if op not in ('call', 'invoke', 'callbr'):
                    continue
                st['call_sites'] += 1
                kind, callee, _ = parse_call(ir_tokens(body))
                if kind == 'global':
                    if callee.startswith('llvm.'):
                        st['intrinsic'] += 1
                    elif callee in mod.fmap and mod.fmap[callee].defined:
                        st['direct_defined'] += 1
                    else:
                        st['direct_declared'] += 1
                elif kind == 'local':
                    st['indirect'] += 1
                elif kind == 'asm':
                    st['inline_asm'] += 1
                else:
                    st['constexpr'] += 1
    stats = collections.OrderedDict()
    stats['functions'] = len(funcs)
    stats['blocks'] = st['blocks']
    stats['edges'] = st['edges']
    stats['unreachable_blocks'] = st['unreachable']
    stats['loops'] = sum(len(f['loops']) for f in funcs)
    stats['max_loop_depth'] = max([l['depth'] for f in funcs for l in f['loops']], default=0)
    stats['irreducible_functions'] = sum(1 for f in funcs if f['irreducible'])
    stats['functions_with_loops'] = sum(1 for f in funcs if f['loops'])
    stats['nontrivial_cfg_sccs'] = sum(len(f['cfg_sccs']) for f in funcs)
    stats['max_cfg_scc'] = max([len(c) for f in funcs for c in f['cfg_sccs']], default=0)
    stats['max_blocks_in_function'] = max([len(f['blocks']) for f in funcs], default=0)
    stats['terminators'] = dict(terms)
    stats['numbered_blocks'] = st['numbered']
    stats['functions_missing_in_domtree'] = st['missing']
    stats['instructions'] = st['instructions']
    stats['call_sites'] = st['call_sites']
    stats['call_sites_direct_defined'] = st['direct_defined']
    stats['call_sites_direct_declared'] = st['direct_declared']
    stats['call_sites_intrinsic'] = st['intrinsic']
    stats['call_sites_indirect'] = st['indirect']
    stats['call_sites_inline_asm'] = st['inline_asm']
    stats['call_sites_constexpr_callee'] = st['constexpr']
    stats['irreducible_function_names'] = [f['name'] for f in funcs if f['irreducible']]
    out = collections.OrderedDict()
    out['format'] = 'cfg-oracle-1'
    out['source'] = source_name(ll_path)
    out['llvm'] = llvm_version or mod.ident
    out['stats'] = stats
    out['checks'] = checks
    out['check_counts'] = collections.OrderedDict((k, len(v)) for k, v in checks.items())
    out['functions'] = funcs
    return out


# ----------------------------------------------------------------------------------------
# X.lcg.json: a replica of LLVM 14's LazyCallGraph

class LazyCallGraphReplica:
    def __init__(self, mod, lib_functions):
        self.mod = mod
        self.lib = [f for f in lib_functions]
        self.gv_init = {name: ini for name, ini in mod.globals}
        self.alias = {name: text for name, _, text in mod.aliases}
        self.const_cache = {}

    def operands(self, c):
        """Operands of a constant (only those mentioning a global)."""
        if c.kind != 'global':
            return c.ops
        name = c.key[1:]
        if name in self.const_cache:
            return self.const_cache[name]
        ops = []
        if name in self.gv_init and self.gv_init[name]:
            v = parse_value(self.gv_init[name])
            ops = [v] if v is not None else []
        elif name in self.alias:
            v = parse_value(ir_tokens(self.alias[name]))
            ops = [v] if v is not None else []
        self.const_cache[name] = ops
        return ops

    def visit_references(self, work, visited, callback):
        while work:
            c = work.pop()
            if c.kind == 'global' and c.key[1:] in self.mod.fmap:
                f = self.mod.fmap[c.key[1:]]
                if f.defined:
                    callback(f.name)
                continue
            if c.kind == 'blockaddress':
                continue
            for op in self.operands(c):
                if op.key not in visited:
                    visited.add(op.key)
                    work.append(op)

    def edges(self, f):
        """LazyCallGraph::Node::populateSlow: [[callee, 'call'|'ref']] in LLVM's order."""
        out = []
        seen = set()

        def add(name, kind):
            if name not in seen:
                seen.add(name)
                out.append([name, kind])
        work = []
        visited = set()
        callees = set()
        for b in f.blocks:
            for inst in b.insts:
                consts, call = inst_constants(inst)
                if call is not None and call[0] == 'global':
                    callee = self.mod.fmap.get(call[1])
                    if callee is not None and callee.defined and callee.name not in callees:
                        callees.add(callee.name)
                        visited.add('@' + callee.name)
                        add(callee.name, 'call')
                for c in consts:
                    if c.key not in visited:
                        visited.add(c.key)
                        work.append(c)
        self.visit_references(work, visited, lambda name: add(name, 'ref'))
        for name in self.lib:
            if '@' + name not in visited:
                add(name, 'ref')
        return out

    def entry_roots(self):
        roots = []
        for f in self.mod.functions:
            if f.defined and not f.local:
                roots.append(f.name)
        for name, local, text in self.mod.aliases:
            if local:
                continue
            v = parse_value(ir_tokens(text))
            if v is not None and v.kind == 'global' and v.key[1:] in self.mod.fmap \
                    and self.mod.fmap[v.key[1:]].defined and v.key[1:] not in roots:
                roots.append(v.key[1:])
        work = []
        visited = set()
        for name, ini in self.mod.globals:
            if ini:
                v = parse_value(ini)
                if v is not None and v.key not in visited:
                    visited.add(v.key)
                    work.append(v)

        def add(name):
            if name not in roots:
                roots.append(name)
        self.visit_references(work, visited, add)
        return roots


def generic_sccs(roots, children, num, low, form):
    """LazyCallGraph::buildGenericSCCs (iterative Tarjan; num 0 = unvisited, -1 = done)."""
    for root in roots:
        if num.get(root, 0) != 0:
            continue
        num[root] = low[root] = 1
        nxt = 2
        dfs = [(root, 0)]
        pending = []
        while dfs:
            node, i = dfs.pop()
            ch = children(node)
            while i < len(ch):
                c = ch[i]
                if num.get(c, 0) == 0:
                    dfs.append((node, i))
                    num[c] = low[c] = nxt
                    nxt += 1
                    node, i, ch = c, 0, children(c)
                    continue
                if num[c] == -1:
                    i += 1
                    continue
                if low[c] < low[node]:
                    low[node] = low[c]
                i += 1
            pending.append(node)
            if low[node] != num[node]:
                continue
            rootnum = num[node]
            k = len(pending)
            while k > 0 and num[pending[k - 1]] >= rootnum:
                k -= 1
            scc = pending[k:][::-1]
            del pending[k:]
            form(scc)


def lcg_postorder(roots, edges):
    """LazyCallGraph::buildRefSCCs: RefSCCs in post-order, each a list of call SCCs."""
    num = {}
    low = {}
    post = []
    all_children = {n: [e[0] for e in es] for n, es in edges.items()}
    call_children = {n: [e[0] for e in es if e[1] == 'call'] for n, es in edges.items()}

    def form_refscc(nodes):
        sccs = []
        for n in nodes:
            num[n] = low[n] = 0

        def form_scc(scc):
            sccs.append(scc)
            for n in scc:
                num[n] = low[n] = -1
        generic_sccs(nodes, lambda n: call_children.get(n, []), num, low, form_scc)
        post.append(sccs)
    generic_sccs(roots, lambda n: all_children.get(n, []), num, low, form_refscc)
    return post


def lcg_answer(ll_path, lcg_path, cgsccs_path, llvm_version=None):
    mod = parse_module(read_text(ll_path))
    printed, post = parse_lcg(read_text(lcg_path))
    defined = {f.name for f in mod.functions if f.defined}
    # Defined library functions get a ref edge from every node, declarations included;
    # a declaration has no other edges, so the printed edges of declarations name them.
    lib = []
    for f in mod.functions:
        if not f.defined:
            for callee, _ in printed.get(f.name, []):
                if callee not in lib:
                    lib.append(callee)
    rep = LazyCallGraphReplica(mod, lib)
    roots = rep.entry_roots()
    nodes = []
    replica_edges = {}
    order_mismatch = []
    set_mismatch = []
    decl_with_edges = []
    for f in mod.functions:
        es = printed.get(f.name, [])
        mine = rep.edges(f) if f.defined else [[n, 'ref'] for n in lib]
        replica_edges[f.name] = mine
        if mine != es:
            order_mismatch.append(f.name)
        if sorted(map(tuple, mine)) != sorted(map(tuple, es)):
            set_mismatch.append(f.name)
        if not f.defined and es:
            decl_with_edges.append(f.name)
        nd = collections.OrderedDict()
        nd['name'] = f.name
        nd['defined'] = f.defined
        nd['edges'] = es
        nodes.append(nd)
    edges = {nd['name']: nd['edges'] for nd in nodes}
    replica_post = lcg_postorder(roots, edges)
    in_refscc = {n for rc in post for scc in rc for n in scc}
    # networkx checks
    g = nx.DiGraph()
    g.add_nodes_from(edges)
    gc = nx.DiGraph()
    gc.add_nodes_from(edges)
    for n, es in edges.items():
        for t, k in es:
            g.add_edge(n, t)
            if k == 'call':
                gc.add_edge(n, t)
    reach = set()
    for r in roots:
        if r not in reach:
            reach |= nx.descendants(g, r) | {r}
    ref_parts = {frozenset(c) for c in nx.strongly_connected_components(g.subgraph(reach))}
    call_parts = {frozenset(c) for c in nx.strongly_connected_components(gc.subgraph(reach))}
    printed_ref = {frozenset(n for scc in rc for n in scc) for rc in post}
    printed_scc = {frozenset(scc) for rc in post for scc in rc}
    rc_index = {n: i for i, rc in enumerate(post) for scc in rc for n in scc}
    flat = [scc for rc in post for scc in rc]
    scc_index = {n: i for i, scc in enumerate(flat) for n in scc}
    rc_valid = all(rc_index[t] <= rc_index[n] for n, es in edges.items() if n in rc_index
                   for t, _ in es if t in rc_index)
    scc_valid = all(scc_index[t] <= scc_index[n] for n, es in edges.items() if n in scc_index
                    for t, k in es if k == 'call' and t in scc_index)
    stats = collections.OrderedDict()
    stats['defined_functions'] = len(defined)
    stats['declared_functions'] = len(mod.functions) - len(defined)
    stats['entry_roots'] = len(roots)
    stats['call_edges'] = sum(1 for es in edges.values() for e in es if e[1] == 'call')
    stats['ref_edges'] = sum(1 for es in edges.values() for e in es if e[1] == 'ref')
    stats['refsccs'] = len(post)
    stats['sccs'] = len(flat)
    stats['nontrivial_refsccs'] = sum(1 for rc in post if sum(map(len, rc)) > 1)
    stats['nontrivial_sccs'] = sum(1 for scc in flat if len(scc) > 1)
    stats['max_refscc_functions'] = max([sum(map(len, rc)) for rc in post], default=0)
    stats['max_refscc_sccs'] = max([len(rc) for rc in post], default=0)
    stats['max_scc'] = max([len(scc) for scc in flat], default=0)
    stats['self_call_edges'] = sum(1 for n, es in edges.items() for e in es
                                   if e[0] == n and e[1] == 'call')
    stats['self_ref_edges'] = sum(1 for n, es in edges.items() for e in es
                                  if e[0] == n and e[1] == 'ref')
    not_in = [f.name for f in mod.functions if f.defined and f.name not in in_refscc]
    stats['defined_not_in_any_refscc'] = len(not_in)
    checks = collections.OrderedDict()
    checks['edges_order_mismatch'] = len(order_mismatch)
    checks['edges_set_mismatch'] = len(set_mismatch)
    checks['declarations_with_edges(LibFunctions)'] = len(decl_with_edges)
    checks['postorder_replica_equal'] = replica_post == post
    checks['printed_functions_equal_reachable_from_roots'] = in_refscc == reach
    checks['refscc_partition_equal_networkx'] = printed_ref == ref_parts
    checks['scc_partition_equal_networkx'] = printed_scc == call_parts
    checks['refscc_postorder_valid'] = rc_valid
    checks['scc_postorder_valid'] = scc_valid
    examples = collections.OrderedDict()
    examples['edges_order_mismatch'] = order_mismatch[:10]
    examples['edges_set_mismatch'] = set_mismatch[:10]
    examples['declarations_with_edges(LibFunctions)'] = decl_with_edges[:10]
    out = collections.OrderedDict()
    out['format'] = 'lcg-oracle-1'
    out['source'] = source_name(ll_path)
    out['llvm'] = llvm_version or mod.ident
    out['stats'] = stats
    out['checks'] = checks
    out['check_examples'] = examples
    out['entry_roots'] = roots
    out['nodes'] = nodes
    out['postorder_refsccs'] = post
    out['defined_not_in_any_refscc'] = not_in
    out['legacy_callgraph_sccs'] = parse_cgsccs(read_text(cgsccs_path)) if cgsccs_path else None
    return out


# ----------------------------------------------------------------------------------------
# command line

def load_json(path):
    return json.loads(read_text(path))


def diff_json(a, b, path='', out=None, limit=20):
    """Paths at which two parsed JSON values differ (at most `limit`)."""
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                out.append('%s.%s: only in %s' % (path, k, 'first' if k in a else 'second'))
            else:
                diff_json(a[k], b[k], '%s.%s' % (path, k), out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append('%s: length %d != %d' % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            diff_json(x, y, '%s[%d]' % (path, i), out, limit)
    elif a != b or type(a) != type(b):
        out.append('%s: %s != %s' % (path, json.dumps(a)[:80], json.dumps(b)[:80]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('cfg')
    c.add_argument('ll')
    c.add_argument('--domloops', required=True)
    c.add_argument('--cfgsccs', required=True)
    c.add_argument('--llvm-version')
    c.add_argument('-o', '--out', default='-')
    c = sub.add_parser('lcg')
    c.add_argument('ll')
    c.add_argument('--lcg', required=True)
    c.add_argument('--cgsccs', help='without it legacy_callgraph_sccs is null')
    c.add_argument('--llvm-version')
    c.add_argument('-o', '--out', default='-')
    c = sub.add_parser('ptx')
    c.add_argument('ptx')
    c.add_argument('-o', '--out', default='-')
    c = sub.add_parser('compare')
    c.add_argument('a')
    c.add_argument('b')
    a = ap.parse_args(argv)
    if a.cmd == 'cfg':
        write_json(cfg_answer(a.ll, a.domloops, a.cfgsccs, a.llvm_version), a.out)
    elif a.cmd == 'lcg':
        write_json(lcg_answer(a.ll, a.lcg, a.cgsccs, a.llvm_version), a.out)
    elif a.cmd == 'ptx':
        write_json(ptx_answer(a.ptx), a.out)
    else:
        d = diff_json(load_json(a.a), load_json(a.b))
        for line in d:
            print(line)
        print('%s: %s' % (source_name(a.b), 'equal' if not d else 'DIFFERENT'))
        return 1 if d else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
