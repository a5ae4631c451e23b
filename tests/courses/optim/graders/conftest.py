"""The graders are plain pytest files; this plugin runs their scenarios against a submission."""
pytest_plugins = ["modlab.instructor.pytest_plugin"]
