"""What the ``hanoibot`` sub-commands in :mod:`hanoibot.commands` share, and the larger parts of single ones.

Argument helpers (:mod:`.plan_options`: the plan flags and whole-number types), output files and plan writers
(:mod:`.output_files`, :mod:`.solve_output`, :mod:`.move_lines`), the live run view (:mod:`.run_view`), wording
(:mod:`.words`), and the parts of ``solve`` (:mod:`.colour_solve`), ``emulate`` (:mod:`.emulate_pico`) and
``calibrate --grip`` (:mod:`.grip_calibration`). :mod:`hanoibot.commands` holds the sub-commands alone.
"""
