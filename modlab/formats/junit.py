"""``--junit FILE``: JUnit XML, one testcase per grader test, for CI test reports."""
from __future__ import annotations

from xml.etree import ElementTree as ET

from modlab.records import FAILED, SKIPPED, SubmissionResult

from .feedback import failure_text


def junit_xml(results: list[SubmissionResult]) -> str:
    """One ``<testsuite>`` per student and exercise, one ``<testcase>`` per test."""
    suites = ET.Element("testsuites", name="modlab")
    for result in results:
        for exercise in result.exercises:
            suite = ET.SubElement(suites, "testsuite", {
                "name": f"{result.student}.{exercise.id}",
                "tests": str(len(exercise.tests)),
                "failures": str(exercise.failed),
                "skipped": str(exercise.skipped),
                "errors": "0",
                "time": f"{exercise.seconds:.3f}",
            })
            for test in exercise.tests:
                case = ET.SubElement(suite, "testcase", {
                    "classname": f"{result.student}.exercise_{exercise.id}",
                    "name": test.name,
                    "time": f"{test.seconds:.3f}",
                })
                if test.outcome == FAILED:
                    failure = ET.SubElement(case, "failure", message=test.reason or "failed")
                    failure.text = failure_text(test)
                elif test.outcome == SKIPPED:
                    ET.SubElement(case, "skipped", message=test.note)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
