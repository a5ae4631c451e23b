# Two entry points, both starting from a fresh clone:
#   make demo   create .venv, install, grade the reference and the stubs
#   make test   create .venv, install, run the project's own tests
#   make mutation  mutation testing of the grading-critical modules (docs/mutation.md)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install demo test build mutation clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[instructor,test]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 > /dev/null
	touch $@

demo: install
	$(BIN)/modlab grade solutions/
	$(BIN)/modlab grade exercises/

# In parallel, a worker per core; tests that share a set-up run on one worker (tests/conftest.py).
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: otherwise each of the suite's
# hundreds of processes compiles modlab again, and each worker rewrites every test module.
test: install
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n auto --dist loadgroup --no-loadscope-reorder

build: install
	$(BIN)/modlab build

# Mutation testing (scripts/mutation.py, docs/mutation.md): each module group in turn, a few minutes each;
# then the hand-made breakages of the verdict (scripts/breakages.py), each of which the tests must notice.
mutation: install
	$(BIN)/pip install --quiet -c constraints.txt -e '.[instructor,mutation]'
	$(BIN)/python scripts/mutation.py
	$(BIN)/python scripts/breakages.py

clean:
	rm -rf $(VENV) build *.egg-info
