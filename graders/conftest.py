"""The graders are plain pytest files; this plugin runs their scenarios
against a submission: ``pytest graders/ --submission path/to/folder``."""
pytest_plugins = ["modlab.instructor.pytest_plugin"]
