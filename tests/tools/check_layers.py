#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks two rules of docs/layout.md over the source tree (issue 53); the ctest `layers` runs it.

1. SQL lives in model/store. Outside it, a C++ file that holds an SQL statement in a string
   literal, prepares a statement or calls the SQLite C API fails the check, except:
   - the user's own queries (they arrive as text and go to model/store/readonlyquery.h: the
     files that only hold the Query view's examples and completion words are listed), and
   - the Nsight Systems reader, which reads another tool's SQLite file, never a project.
2. No include cycle inside model/core, model/store, model/analysis or model/read: each room's files form a
   graph (a header and its .cpp are one node) without cycles.

Usage: tests/tools/check_layers.py [ROOT]   (exit 0: both hold; 1: a rule is broken)
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), '..', '..'))
ROOMS = ['app', 'importers', 'model', 'simulator', 'views']
STORE = 'model/store/'

# Files that may hold SQL outside the store, and why.
ALLOWED = {
    # Another tool's database (Nsight Systems' export), read through its own connection.
    'importers/nsight/nsysimporter.cpp': 'reads Nsight Systems SQLite files',
    'importers/nsight/nsystracks.cpp': 'reads Nsight Systems SQLite files',
    'importers/nsight/nsyssession.h': 'reads Nsight Systems SQLite files',
    # The user's own queries: examples offered and words completed, run by readonlyquery.
    'views/panels/queryview.cpp': "the Query view's example queries",
    'app/cli/querycommand.cpp': "the user's query, and its usage text",
    'app/cli/grademl_main.cpp': 'the usage text of grademl query',
}

SQL_LITERAL = re.compile(
    r'"(?:[^"\\\n]|\\.)*?\b(?:SELECT|INSERT|UPDATE|DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX|VIEW|'
    r'TRIGGER|VIRTUAL)|DROP\s+(?:TABLE|INDEX|VIEW)|PRAGMA|ATTACH|DETACH|BEGIN|COMMIT|ROLLBACK|'
    r'SAVEPOINT|RELEASE\s+\w|ALTER\s+TABLE|VACUUM|REPLACE\s+INTO)\b(?:[^"\\\n]|\\.)*"')
SQL_CALL = re.compile(r'\b(?:sqlite3_\w+\s*\(|(?:db\(\)|db|m_db|\w*Db)\s*(?:\.|->)\s*'
                      r'(?:prepare|exec|scalar)\s*\()')


def sources():
    for room in ROOMS:
        for base, _, files in os.walk(os.path.join(ROOT, room)):
            for f in files:
                if f.endswith(('.cpp', '.h')):
                    path = os.path.join(base, f)
                    yield os.path.relpath(path, ROOT).replace(os.sep, '/'), path


def strip_comments(text):
    # Comments may quote SQL when they explain it; only code counts.
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
        elif text[i] == '"':
            m = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(text, i)
            j = m.end() if m else i + 1
            out.append(text[i:j])
            i = j
        elif text[i] == "'":
            m = re.compile(r"'(?:[^'\\\n]|\\.)*'").match(text, i)
            j = m.end() if m else i + 1
            out.append(text[i:j])
            i = j
        else:
            out.append(text[i])
            i += 1
    return ''.join(out)


def sql_count(text):
    code = strip_comments(text)
    return len(SQL_LITERAL.findall(code)) + len(SQL_CALL.findall(code))


def check_sql():
    problems = []
    for rel, path in sorted(sources()):
        if rel.startswith(STORE) or rel in ALLOWED:
            continue
        with open(path, encoding='utf-8') as f:
            n = sql_count(f.read())
        if n:
            problems.append(f'{rel}: {n} SQL statement(s) or SQLite call(s) outside model/store '
                            '(add a typed read or write to model/store and call that)')
    return problems


# Files that are one component with another: the slice store's chunk format, codec and virtual
# tables are the slice store, written in four files.
SAME_NODE = {'chunkformat': 'slicestore', 'chunkcodec': 'slicestore', 'slicevtab': 'slicestore'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check_cycles():
    problems = []
    for room in ('model/core', 'model/store', 'model/analysis', 'model/read', 'model/share'):
        folder = os.path.join(ROOT, room)
        files = [f for f in os.listdir(folder) if f.endswith(('.cpp', '.h'))]
        node_of = lambda name: SAME_NODE.get(name, name)
        nodes = {node_of(os.path.splitext(f)[0]) for f in files}
        edges = {n: set() for n in nodes}
        for f in files:
            node = node_of(os.path.splitext(f)[0])
            with open(os.path.join(folder, f), encoding='utf-8') as fh:
                for inc in INCLUDE.findall(fh.read()):
                    target = node_of(os.path.splitext(os.path.basename(inc))[0])
                    if target in nodes and target != node:
                        edges[node].add(target)
        # Tarjan's strongly connected components.
        index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in sorted(edges[v]):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

        for v in sorted(nodes):
            if v not in index:
                visit(v)
        for comp in out:
            problems.append(f'{room}: include cycle among ' + ', '.join(comp))
    return problems


def main():
    problems = check_sql() + check_cycles()
    for p in problems:
        print('error: ' + p)
    if problems:
        print(f'{len(problems)} problem(s); the rules are in docs/layout.md')
        return 1
    print(f'SQL only in model/store and the {len(ALLOWED)} allowed files; no include cycle in '
          'model/')
    return 0


if __name__ == '__main__':
    sys.exit(main())
