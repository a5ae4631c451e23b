"""A generated class for `modlab similarity`: students who wrote their own code, and
students who copied it in disguise.

Independent work: exercises 03 (walk.py) and 06 (state.py) each have three
correct implementations written separately: the reference, an ``iterative``
one (explicit stacks, identity lists, string concatenation) and a
``collecting`` one (nested helpers, id sets, collected lists, extra helper
functions). The iterative and collecting ones got full marks from the graders
of commit 2ce145e; functions the course added since (``get_submodule``,
state-dict hooks, ``assign``...) stay stubs in them, starter code that never
counts, and their state.py follows that commit's ``_load_from_state_dict``.

Copies: one of those files passed through a disguise, each on its own
(:data:`DISGUISES`) or all together. Each disguise keeps the program valid
Python with the same behaviour.

:func:`small_class` is the class of the tests; :func:`large_class` a class of
any size for ``bench/similarity.py``, where every independent file also gets
lines of its own, so that no two independent students hand in the same file.
"""
from __future__ import annotations

import ast
import io
import random
import re
import textwrap
import tokenize
from pathlib import Path

from modlab.instructor.build import stub_sources

# --- independent implementations -------------------------------------------------------------

WALK_ITERATIVE = {
    "named_modules": '''
        if memo is None:
            memo = set()
        pending = [(prefix, self)]
        while pending:
            path, node = pending.pop()
            if node in memo:
                continue
            if remove_duplicate:
                memo.add(node)
            yield path, node
            below = [(_join(path, key), sub) for key, sub in node._modules.items() if sub is not None]
            pending.extend(below[::-1])
    ''',
    "modules": '''
        return (module for _, module in self.named_modules(remove_duplicate=remove_duplicate))
    ''',
    "named_children": '''
        taken = []
        for key in list(self._modules):
            child = self._modules[key]
            if child is None or any(child is other for other in taken):
                continue
            taken.append(child)
            yield key, child
    ''',
    "children": '''
        yield from (child for _, child in self.named_children())
    ''',
    "named_parameters": '''
        return self._named_members(lambda owner: list(owner._parameters.items()), prefix, recurse, remove_duplicate)
    ''',
    "parameters": '''
        for entry in self.named_parameters(recurse=recurse):
            yield entry[1]
    ''',
    "named_buffers": '''
        return self._named_members(lambda owner: list(owner._buffers.items()), prefix, recurse, remove_duplicate)
    ''',
    "buffers": '''
        for entry in self.named_buffers(recurse=recurse):
            yield entry[1]
    ''',
    "_named_members": '''
        if recurse:
            walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            walk = iter([(prefix, self)])
        already = []
        for owner_name, owner in walk:
            for key, value in members_of(owner):
                if value is None:
                    continue
                if remove_duplicate:
                    if any(value is old for old in already):
                        continue
                    already.append(value)
                yield (owner_name + "." + key) if owner_name else key, value
    ''',
    "_join": '''
        return name if not prefix else prefix + "." + name
    ''',
}

WALK_COLLECTING = {
    "named_modules": '''
        found = []
        visited = memo if memo is not None else set()

        def visit(module, path):
            if module in visited:
                return
            if remove_duplicate:
                visited.add(module)
            found.append((path, module))
            for key, child in module._modules.items():
                if child is None:
                    continue
                visit(child, key if not path else path + "." + key)

        visit(self, prefix)
        yield from found
    ''',
    "modules": '''
        names_and_modules = list(self.named_modules(remove_duplicate=remove_duplicate))
        for index in range(len(names_and_modules)):
            yield names_and_modules[index][1]
    ''',
    "named_children": '''
        ids = set()
        for key, child in list(self._modules.items()):
            if child is not None and id(child) not in ids:
                ids.add(id(child))
                yield key, child
    ''',
    "children": '''
        yield from [child for _, child in self.named_children()]
    ''',
    "named_parameters": '''
        def params(module):
            return module._parameters.items()

        yield from self._named_members(params, prefix, recurse, remove_duplicate)
    ''',
    "parameters": '''
        yield from (p for _, p in self.named_parameters(recurse=recurse))
    ''',
    "named_buffers": '''
        def bufs(module):
            return module._buffers.items()

        yield from self._named_members(bufs, prefix, recurse, remove_duplicate)
    ''',
    "buffers": '''
        yield from (b for _, b in self.named_buffers(recurse=recurse))
    ''',
    "_named_members": '''
        if recurse:
            owners = list(self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate))
        else:
            owners = [(prefix, self)]
        emitted = {}
        for owner_prefix, owner in owners:
            for key, value in members_of(owner):
                if value is None or id(value) in emitted:
                    continue
                if remove_duplicate:
                    emitted[id(value)] = value  # kept alive, so its id is not reused
                full = _join(owner_prefix, key)
                yield full, value
    ''',
    "_join": '''
        if prefix:
            return prefix + "." + name
        return name
    ''',
}

STATE_ITERATIVE = {
    "state_dict": '''
        result = OrderedDict() if destination is None else destination
        for path, module in self.named_modules(remove_duplicate=False):
            module._save_to_state_dict(result, prefix + path + "." if path else prefix, keep_vars)
        return result
    ''',
    "_save_to_state_dict": '''
        destination.update((prefix + key, value if keep_vars else value.detach())
                           for key, value in _own_state(self).items())
    ''',
    "load_state_dict": '''
        if not isinstance(state_dict, Mapping):
            raise TypeError("Expected state_dict to be dict-like, got " + str(type(state_dict)) + ".")
        report = IncompatibleKeys([], [])
        problems = []
        _load_tree(self, state_dict, "", report.missing_keys, report.unexpected_keys, problems)
        header = []
        if strict and report.missing_keys:
            header.append("Missing key(s) in state_dict: " + _quoted(report.missing_keys) + ". ")
        if strict and report.unexpected_keys:
            header.append("Unexpected key(s) in state_dict: " + _quoted(report.unexpected_keys) + ". ")
        problems = header + problems
        if len(problems) > 0:
            raise RuntimeError("Error(s) in loading state_dict for " + self.__class__.__name__ + ":\\n\\t"
                               + "\\n\\t".join(problems))
        return report
    ''',
    "_load_from_state_dict": '''
        expected = _own_state(self)
        for name in expected:
            full = prefix + name
            if full not in state_dict:
                missing_keys.append(full)
                continue
            incoming = state_dict[full]
            target = expected[name]
            if not isinstance(incoming, torch.Tensor):
                error_msgs.append('While copying the parameter named "' + full + '", expected torch.Tensor or '
                                  + "Tensor-like object from checkpoint but received " + str(type(incoming)))
            elif incoming.shape != target.shape:
                error_msgs.append("size mismatch for " + full + ": copying a param with shape "
                                  + str(incoming.shape) + " from checkpoint, the shape in current model is "
                                  + str(target.shape) + ".")
            else:
                with torch.no_grad():
                    target.copy_(incoming)
        children = self._modules
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            rest = key[len(prefix):]
            if "." in rest:
                if rest.split(".")[0] not in children:
                    unexpected_keys.append(key)
            elif rest not in expected:
                unexpected_keys.append(key)
    ''',
    "_own_state": '''
        state = OrderedDict()
        for name in module._parameters:
            if module._parameters[name] is not None:
                state[name] = module._parameters[name]
        skip = module._non_persistent_buffers_set
        for name in module._buffers:
            buffer = module._buffers[name]
            if buffer is None or name in skip:
                continue
            state[name] = buffer
        return state
    ''',
    "_load_tree": '''
        for path, child in module.named_modules(remove_duplicate=False):
            child._load_from_state_dict(state_dict, prefix + path + "." if path else prefix,
                                        missing_keys, unexpected_keys, error_msgs)
    ''',
    "_quoted": '''
        return ", ".join('"' + key + '"' for key in keys)
    ''',
}

STATE_COLLECTING = {
    "state_dict": '''
        out = destination if destination is not None else OrderedDict()
        self._save_to_state_dict(out, prefix, keep_vars)
        for child_name in self._modules:
            submodule = self._modules[child_name]
            if submodule is None:
                continue
            submodule.state_dict(destination=out, prefix=f"{prefix}{child_name}.", keep_vars=keep_vars)
        return out
    ''',
    "_save_to_state_dict": '''
        for key, value in _own_state(self).items():
            if not keep_vars:
                value = value.detach()
            destination[prefix + key] = value
    ''',
    "load_state_dict": '''
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        lost, extra, messages = [], [], []
        _load_tree(self, state_dict, "", lost, extra, messages)
        if strict:
            messages = ([f"Missing key(s) in state_dict: {_quoted(lost)}. "] if lost else []) + \\
                ([f"Unexpected key(s) in state_dict: {_quoted(extra)}. "] if extra else []) + messages
        if messages:
            name = type(self).__name__
            raise RuntimeError(f"Error(s) in loading state_dict for {name}:\\n\\t" + "\\n\\t".join(messages))
        return IncompatibleKeys(lost, extra)
    ''',
    "_load_from_state_dict": '''
        mine = _own_state(self)
        for name, tensor in mine.items():
            key = prefix + name
            if key in state_dict:
                _copy_into(tensor, state_dict[key], key, error_msgs)
            else:
                missing_keys.append(key)
        unexpected_keys.extend(key for key in state_dict
                               if key.startswith(prefix) and not _belongs(self, mine, key[len(prefix):]))
    ''',
    "_own_state": '''
        persistent = {name: buffer for name, buffer in module._buffers.items()
                      if buffer is not None and name not in module._non_persistent_buffers_set}
        parameters = {name: p for name, p in module._parameters.items() if p is not None}
        return {**parameters, **persistent}
    ''',
    "_load_tree": '''
        pending = [(module, prefix)]
        while pending:
            current, path = pending.pop()
            current._load_from_state_dict(state_dict, path, missing_keys, unexpected_keys, error_msgs)
            children = [(child, path + name + ".") for name, child in current._modules.items() if child is not None]
            pending.extend(reversed(children))
    ''',
    "_quoted": '''
        quoted = []
        for key in keys:
            quoted.append('"' + key + '"')
        return ", ".join(quoted)
    ''',
}

STATE_COLLECTING_HELPERS = '''

def _copy_into(tensor, value, key, error_msgs):
    """Copy ``value`` into ``tensor`` in place, or say in ``error_msgs`` why not."""
    if not isinstance(value, torch.Tensor):
        error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(value)}")
        return
    if value.shape != tensor.shape:
        error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                          f"checkpoint, the shape in current model is {tensor.shape}.")
        return
    with torch.no_grad():
        tensor.copy_(value)


def _belongs(module, own, rest):
    """Whether key ``rest`` (below the module's prefix) names something the module has."""
    if "." in rest:
        return rest.split(".", 1)[0] in module._modules
    return rest in own
'''

# file -> implementation name -> (bodies by function, helper code appended to the file)
IMPLEMENTATIONS = {
    "walk.py": {"iterative": (WALK_ITERATIVE, ""), "collecting": (WALK_COLLECTING, "")},
    "state.py": {"iterative": (STATE_ITERATIVE, ""), "collecting": (STATE_COLLECTING, STATE_COLLECTING_HELPERS)},
}
STUB_LINE = re.compile(r'^(?P<indent>[ \t]*)raise NotImplementedError\("exercise \d+: (?P<name>\w+)"\)[ \t]*$',
                       re.MULTILINE)
SOLUTION_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION\n(?P<body>.*?)^[ \t]*### END SOLUTION\n", re.MULTILINE | re.DOTALL)


def written(course, file: str, bodies: dict[str, str], helpers: str = "") -> str:
    """The stub of ``file`` with the functions named in ``bodies`` written, and ``helpers`` appended."""
    def body(stub: re.Match) -> str:
        if stub["name"] not in bodies:
            return stub[0]
        return textwrap.indent(textwrap.dedent(bodies[stub["name"]]).strip("\n"), stub["indent"])

    return STUB_LINE.sub(body, stub_sources(course)[file]) + helpers


def reference_bodies(course, file: str) -> dict[str, str]:
    """The reference's function bodies of ``file``, by function name (its solution regions)."""
    solution = (course.solutions / file).read_text(encoding="utf-8")
    names = [stub["name"] for stub in STUB_LINE.finditer(stub_sources(course)[file])]
    return dict(zip(names, (region["body"] for region in SOLUTION_REGION.finditer(solution))))


def implementation(course, file: str, name: str) -> str:
    """One whole independent implementation of ``file``: ``reference``, or one of :data:`IMPLEMENTATIONS`."""
    if name == "reference":
        return written(course, file, reference_bodies(course, file))
    return written(course, file, *IMPLEMENTATIONS[file][name])


# --- disguises ----------------------------------------------------------------------------------

def rename_variables(source: str) -> str:
    """Every local variable renamed (``found`` -> ``v1``...), in code and in f-strings.

    Parameters, functions, attributes, keyword arguments and module-level
    names keep their names: the graders call the functions by them.
    """
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    parameters = {a.arg for f in functions for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs)
                  if isinstance(f, ast.FunctionDef)}
    stored = {n.id for f in functions for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    lambda_args = {a.arg for f in functions if isinstance(f, ast.Lambda) for a in f.args.args}
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | parameters
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    local = sorted((stored | lambda_args) - parameters - defined - _module_names(tree))
    fresh = (f"v{i}" for i in range(1, 10_000) if f"v{i}" not in taken)
    renames = dict(zip(local, fresh))
    return _edit_tokens(source, lambda token, before, after, depth: _renamed(token, before, after, depth, renames))


def _module_names(tree: ast.Module) -> set[str]:
    return {n.id for statement in tree.body if not isinstance(statement, (ast.FunctionDef, ast.ClassDef))
            for n in ast.walk(statement) if isinstance(n, ast.Name)}


def _renamed(token: tokenize.TokenInfo, before: str, after: str, depth: int, renames: dict[str, str]) -> str | None:
    keyword_argument = depth > 0 and after == "="
    if token.type == tokenize.NAME and token.string in renames and before != "." and not keyword_argument:
        return renames[token.string]
    if token.type == tokenize.STRING and token.string[:1] in "fF":
        fields = re.compile(r"\{[^{}]*\}")
        words = re.compile(r"\b(" + "|".join(map(re.escape, renames)) + r")\b") if renames else None
        return fields.sub(lambda f: words.sub(lambda w: renames[w[0]], f[0]), token.string) if words else None
    return None


def _edit_tokens(source: str, edit) -> str:
    """``source`` with each one-line token replaced by ``edit(token, previous token, next token,
    bracket depth)`` where that is not None."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    lines = source.splitlines(keepends=True)
    edits, depth = [], 0
    for i, token in enumerate(tokens):
        depth += (token.string in "([{") - (token.string in ")]}") if token.type == tokenize.OP else 0
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        new = edit(token, before, after, depth)
        if new is not None and token.start[0] == token.end[0]:
            edits.append((token.start, token.end[1], new))
    for (row, start), end, new in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(lines)


def reformat(source: str) -> str:
    """Laid out anew: Python's own unparser (spacing, quotes, parentheses, line breaks
    of the original all gone), indented by two spaces, a blank line after every block opener."""
    lines = []
    for line in ast.unparse(ast.parse(source)).splitlines():
        stripped = line.lstrip(" ")
        lines.append(" " * ((len(line) - len(stripped)) // 2) + stripped)
        if stripped.endswith(":") and not stripped.startswith(("else", "elif", "except", "finally")):
            lines.append("")
    return "\n".join(lines) + "\n"


def reorder_functions(source: str) -> str:
    """The methods of every class, and the module's functions, in reverse order."""
    tree = ast.parse(source)
    groups = [[n for n in body if isinstance(n, ast.FunctionDef)]
              for body in [tree.body] + [c.body for c in tree.body if isinstance(c, ast.ClassDef)]]
    spans = []  # (start, end, the span whose text goes there)
    for functions in groups:
        found = [(min([f.lineno] + [d.lineno for d in f.decorator_list]) - 1, f.end_lineno) for f in functions]
        spans += [(start, end, swapped) for (start, end), swapped in zip(found, reversed(found))]
    lines = source.splitlines(keepends=True)
    out, done = [], 0
    for start, end, (from_start, from_end) in sorted(spans):
        out += lines[done:start] + lines[from_start:from_end]
        done = end
    return "".join(out + lines[done:])


COMMENTS = ["# go through them one by one", "# TODO: check this again before submitting",
            "# handle the special case first", "# this is the important part", "# keep track of what we saw",
            "# works, do not touch"]


def add_comments(source: str) -> str:
    """A comment line above every statement in a function body, and a header comment."""
    lines = insert_before_statements(source, lambda number: COMMENTS[number % len(COMMENTS)])
    return "# my solution, written for this course\n" + lines


def insert_before_statements(source: str, line_for, chance: float = 1.0, draw: random.Random | None = None) -> str:
    """``source`` with ``line_for(n)`` (indented as the statement) above statements of function
    bodies, each with probability ``chance``; docstrings and stubbed bodies are left as they are."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    starts: dict[int, int] = {}  # line -> indentation of the outermost statement starting there
    for function in (f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)):
        for statement in (s for s in ast.walk(function) if isinstance(s, ast.stmt) and s is not function):
            row = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])
            if not _is_stub_or_docstring(statement) and not lines[row - 1].lstrip().startswith("elif"):
                starts[row] = min(starts.get(row, statement.col_offset), statement.col_offset)
    rows = sorted(starts)
    for number, row in reversed(list(enumerate(rows))):
        if draw is None or draw.random() < chance:
            lines.insert(row - 1, " " * starts[row] + line_for(number) + "\n")
    return "".join(lines)


def _is_stub_or_docstring(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return True
    return isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement)


def every_disguise(source: str) -> str:
    return add_comments(reformat(reorder_functions(rename_variables(source))))


DISGUISES = {"renamed variables": rename_variables, "reformatted": reformat,
             "reordered functions": reorder_functions, "added comments": add_comments}


# --- the classes ----------------------------------------------------------------------------------

FILES = ("walk.py", "state.py")
INDEPENDENT = {"ada": "reference", "bob": "iterative", "cy": "collecting"}
COPIERS = {  # student -> (whose files, disguise)
    "dan": ("ada", "renamed variables"), "eve": ("bob", "reformatted"), "fay": ("cy", "reordered functions"),
    "gus": ("ada", "added comments"), "hal": ("bob", "every disguise"),
}
STUB_ONLY = ("kim", "lee")
TINY_CHANGE = ("max", "ned")  # the stub with the same one-line helper written
BROKEN = {"oz": "missing", "pia": "not UTF-8", "quin": "a folder"}
MISSING = object()  # a file of the package left out


def small_class(course) -> dict[str, dict[str, object]]:
    """The tests' class: student -> {file: text, bytes (not UTF-8), None (a folder in its place)
    or :data:`MISSING`}. Every other file of the package is the stub."""
    mine = {student: {f: implementation(course, f, name) for f in FILES} for student, name in INDEPENDENT.items()}
    for student, (origin, disguise) in COPIERS.items():
        hide = every_disguise if disguise == "every disguise" else DISGUISES[disguise]
        mine[student] = {f: hide(text) for f, text in mine[origin].items()}
    for student in STUB_ONLY:
        mine[student] = {}
    for student in TINY_CHANGE:
        mine[student] = {"walk.py": written(course, "walk.py", {"_join": 'return f"{prefix}.{name}" if prefix else name'}),
                         "state.py": written(course, "state.py", {"_quoted": 'return ", ".join(keys)'})}
    mine["oz"] = {"walk.py": MISSING, "state.py": MISSING}
    mine["pia"] = {"walk.py": "é = 1\n".encode("latin-1")}
    mine["quin"] = {"walk.py": None, "state.py": None}
    return mine


def copied_pairs() -> set[frozenset[str]]:
    """The pairs that share an origin in :func:`small_class`: what must be flagged, in both exercises."""
    groups: dict[str, set[str]] = {s: {s} for s in INDEPENDENT}
    for student, (origin, _) in COPIERS.items():
        groups[origin].add(student)
    return {frozenset((a, b)) for group in groups.values() for a in group for b in group if a < b}


def write_class(course, folder: Path, students: dict[str, dict[str, object]]) -> Path:
    """``folder/<student>/<package>/``: the stubs, with each student's files written over them."""
    stubs = stub_sources(course)
    for student, files in students.items():
        package = folder / student / course.package
        package.mkdir(parents=True)
        for name, text in {**stubs, **files}.items():
            path = package / name
            if text is MISSING:
                continue
            if text is None:
                path.mkdir()
            elif isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text, encoding="utf-8")
    return folder


NOISE = 0.5  # in large_class, the chance of a line of the student's own above each statement


def large_class(course, count: int, seed: int = 0, copiers: float = 0.05,
                stub_only: float = 0.1) -> tuple[dict[str, dict[str, str]], set[tuple[str, frozenset[str]]]]:
    """A class of ``count`` students over every exercise, and the copied pairs planted in it,
    as ``(exercise id, {student, student})``.

    An independent student's walk.py and state.py mix the three implementations
    function by function; every other file is the reference. Each independent
    file then gets lines of its own above half of its statements, so two
    independent students share only part of their code, as two students who
    followed the same lessons do. A share ``copiers`` of the students copies
    each exercise from another student in a random disguise; a share
    ``stub_only`` hands in the stub for it.
    """
    draw = random.Random(seed)
    bodies = {f: [reference_bodies(course, f)] + [b for b, _ in IMPLEMENTATIONS[f].values()] for f in FILES}
    helpers = {f: "".join(h for _, h in IMPLEMENTATIONS[f].values()) for f in FILES}
    students = {f"student{i:03d}": {} for i in range(count)}
    planted = set()
    for exercise in course.exercises:
        independent, groups = [], {}
        for student, files in students.items():
            roll = draw.random()
            if roll < stub_only:
                continue
            if roll < stub_only + copiers and independent:
                origin = draw.choice(independent)
                hide = draw.choice([*DISGUISES.values(), every_disguise])
                files.update({f: hide(students[origin][f]) for f in exercise.files})
                groups.setdefault(origin, {origin}).add(student)
                continue
            for file in exercise.files:
                if file in bodies:
                    mix = {name: draw.choice([b[name] for b in bodies[file] if name in b]) for name in bodies[file][0]}
                    text = written(course, file, mix, helpers[file])
                else:
                    text = (course.solutions / file).read_text(encoding="utf-8")
                files[file] = insert_before_statements(
                    text, lambda n: f"checked_{draw.randrange(10**6)} = {draw.randrange(10**6)}", NOISE, draw)
            independent.append(student)
        planted |= {(exercise.id, frozenset((a, b))) for group in groups.values() for a in group for b in group if a < b}
    return students, planted
