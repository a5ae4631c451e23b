"""What several exercises' scenarios and detectors share: views of modules (:mod:`.probes`), random
module trees (:mod:`.trees`) and the catalog entries more than one exercise grades
(:mod:`.misconceptions`)."""
