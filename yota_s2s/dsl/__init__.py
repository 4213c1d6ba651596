"""The ``@diffrule`` DSL: ``rule`` (a primitive's signature and derivative formulas, the
``RuleTable``), ``load`` (rule files parsed and validated into a table), ``splice`` (a rule's
formulas added to a tape as equations)."""
