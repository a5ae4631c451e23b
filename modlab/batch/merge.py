"""Combine the results folders of the shards of one class into one, as if graded in one go."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from modlab.course import Course
from modlab.formats.jsonfile import write_atomically, write_json

from .store import MANIFEST, Record, ResultStore


def merge_results(course: Course, folders: list[Path], out: Path) -> list[Record]:
    """Combine the results folders of the shards of one class into ``out``.

    Raises:
        ValueError: the folders are not the complete set of shards of one
            batch (a shard missing or twice, different graders or options,
            or a student without a record).
    """
    stores = [ResultStore(f) for f in folders]
    manifests = [s.manifest() for s in stores]
    _check_shards(folders, manifests)
    merged = ResultStore(out)
    students = sorted(student for m in manifests for student in m["students"])
    twice = sorted(student for student, times in Counter(students).items() if times > 1)
    if twice:
        raise ValueError(f"{', '.join(twice[:5])} graded in two shards: were the shards cut from different classes?")
    merged.students.mkdir(parents=True, exist_ok=True)
    for store, manifest in zip(stores, manifests):
        for record in store.records(manifest["students"]):
            if record.grading_key != manifest["grading_key"]:
                raise ValueError(f"{store.path(record.student)}: graded under another fingerprint than the "
                                 f"rest of its shard; grade that shard again")
            write_atomically(merged.path(record.student), store.path(record.student).read_text(encoding="utf-8"))
    first = manifests[0]
    write_json(merged.folder / MANIFEST, {**first, "shard": [1, 1], "students": students})
    records = merged.records(students)
    merged.write_gradebook(course, records)
    return records


def _check_shards(folders: list[Path], manifests: list[dict]) -> None:
    keys = {m["grading_key"] for m in manifests}
    if len(keys) > 1:
        raise ValueError("the shards were graded under different fingerprints (modlab, the course's graders or "
                         "reference, torch, numpy or Hypothesis, options or limits differ); grade them again alike")
    count = manifests[0]["shard"][1]
    seen: dict[int, Path] = {}
    for folder, manifest in zip(folders, manifests):
        index, of = manifest["shard"]
        if of != count:
            raise ValueError(f"{folder} is shard {index}/{of}, the others are shards of {count}")
        if index in seen:
            raise ValueError(f"{folder} and {seen[index]} are both shard {index}/{count}")
        seen[index] = folder
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise ValueError(f"shard {', '.join(f'{i}/{count}' for i in missing)} missing: merge needs all {count}")
