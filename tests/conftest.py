"""Test-session setup, so that the suite runs the same whether or not the virtualenv is activated
(``.venv/bin/python -m pytest``, as the README and CI run it), and with the ``test`` extra alone:

- the scripts installed beside this Python (``yota-s2s``, ``ruff``) come first on PATH;
- no ``__pycache__`` is written beside imported generated modules (some tests list their folder);
- ``tests/goldens/`` (generated texts kept as files, ``tests/snapshot.py``) is read by a test, never imported;
- under pytest-xdist (``-n auto``), the tests are scheduled by group (``group_of``): a file's tests run
  in one process, in order (module-level random generators draw as in one process), and the tests
  of one part of the snapshot (``tests/test_snapshot.py``'s hashes and ``tests/test_output_form.py``'s
  line widths) in one process, which generates its texts once; the costliest groups start first;
- a test that needs a library of an optional extra (``OPTIONAL``: the array libraries of ``arrayapi``)
  skips, naming it and its extra, where the library is not installed: the ``import`` may be in
  the test or in the generated module it loads (``--target array-api`` imports array-api-compat).
  Any other ``ModuleNotFoundError``, or one of a library that is installed, stays an error.
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

_BIN = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _BIN:
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True

collect_ignore = ["goldens"]

#: The importable name of each library of an optional extra, and the extra (pyproject.toml).
OPTIONAL = {
    "array_api_compat": "arrayapi",
    "array_api_strict": "arrayapi",
    "dask": "arrayapi",
    "distributed": "arrayapi",
    "jax": "arrayapi",
    "jaxlib": "arrayapi",
    "torch": "arrayapi",
}


def _missing(exc: ModuleNotFoundError) -> str | None:
    """The optional library ``exc`` says is missing, where it is one and is not installed."""
    top = (exc.name or "").partition(".")[0]
    if top not in OPTIONAL:
        return None
    try:
        installed = importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        installed = False
    return None if installed else top


def _skip_if_optional(exc: ModuleNotFoundError) -> None:
    if (top := _missing(exc)) is not None:
        pytest.skip(f"{top} is not installed (the '{OPTIONAL[top]}' extra: pip install -e '.[{OPTIONAL[top]}]')")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        _skip_if_optional(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        _skip_if_optional(exc)
        raise


#: About the CPU seconds of the costliest groups (by the start of their name), measured alone, so that
#: they start first and the workers end together (a 2-core run lasts as long as its busier worker);
#: any other group weighs its tests at ``PER_TEST`` seconds each.  A stale figure costs balance, never a result.
COST = {
    "tests/test_array_api.py": 180.0,  # the array-API target run on five libraries
    "tests/test_rules.py": 25.0,  # 1,260 tests: finite differences and SymPy
    "tests/test_names.py": 50.0,  # test_the_batch_is_ruff_clean
    "tests/test_cupy.py": 20.0,
    "snapshot-": 15.0,  # a part of the snapshot: ~1,500 texts generated
    "tests/test_fuzz.py::test_fuzz_bounded[": 15.0,  # 100 programs
    # the pages of the docs that run the most commands (~0.5 s each); the others take a few seconds
    **{
        f"tests/test_docs.py::test_pages_show_what_the_tool_prints_today[{page}]": cost
        for page, cost in [("errors", 30), ("how-it-works", 25), ("cli", 22), ("higher-order", 18), ("workflow", 14)]
    },
}


#: The CPU seconds of a test of the files whose tests run commands (``yota-s2s`` starts in ~0.5 s), measured in
#: the fast subset; any other test weighs 0.02 s.
PER_TEST = {
    "tests/test_plain_python_files.py": 0.8,
    "tests/test_cli.py": 0.75,
    "tests/test_cli_conventions.py": 0.6,
    "tests/test_output_form.py": 0.5,
    "tests/test_complex_modes.py": 0.4,
    "tests/test_workflow.py": 0.35,
    "tests/test_hessian.py": 0.17,
    "tests/test_examples.py": 0.15,
    "tests/test_no_value.py": 0.1,
}


def _cost(group: str, tests: int) -> float:
    return next((c for start, c in COST.items() if group.startswith(start)), PER_TEST.get(group, 0.02) * tests)


#: Tests that share a process by more than their file, or need none: (pattern of the node id, group).
_GROUPS = [
    # a part of the snapshot: its hashes and its lines' widths, generated once (tests/snapshot.py)
    (re.compile(r"^tests/test_(?:snapshot|output_form)\.py::[^@]*\[part(\d+)\]"), r"snapshot-\1"),
    # a page of the docs, a block of fuzzed programs: each on its own (no random generator shared)
    (re.compile(r"^(tests/test_docs\.py::test_pages_show_what_the_tool_prints_today\[[^]]*\])"), r"\1"),
    (re.compile(r"^(tests/test_fuzz\.py::test_fuzz_bounded\[[^]]*\])"), r"\1"),
]


def group_of(nodeid: str) -> str:
    """The group a test runs in under ``-n``: its file's, but for those of ``_GROUPS``."""
    for pattern, group in _GROUPS:
        if (m := pattern.match(nodeid)) is not None:
            return m.expand(group)
    return nodeid.split("::")[0]


#: The fast subset (``-m "not slow"``, what a contributor runs before each commit) is every test but those
#: marked ``slow``: in their files (the snapshot's parts, the rendered docs, the fuzzer's blocks, the runs on
#: other array libraries) and here, by cost measured (about the CPU seconds of the test on a busy 2-core
#: machine, the figure on each line), so that the files need no edit.  A parametrized sweep keeps every k-th
#: of its cases (in collection order; the others are marked slow); a test named alone is marked slow; a case
#: named with its parameters too. The whole run runs them all.  What stays covers every mode, the command
#: line's contracts, the house rules, a sample of the corpus and of the snapshot, and gradients against finite
#: differences.
SAMPLED = {
    "tests/test_plain_python_files.py::test_the_command_line_differentiates_the_file": 11,  # 33 commands, 0.5 s each
    "tests/test_names.py::test_a_user_name_like_a_generated_one_changes_nothing": 14,  # 431 cases, 27 s
    "tests/test_output_form.py::test_no_line_is_longer_than_120_characters": 9,  # 18 forms of an 881-term sum, 19 s
    "tests/test_cupy.py::test_every_rule_case_for_cupy": 10,  # 1,144 cases, 19 s (test_rules runs them all on NumPy)
    "tests/test_corpus.py::test_gradient_matches_finite_differences": 4,  # 250 cases, 13 s
    "tests/test_rules.py::test_rule_matches_finite_differences": 5,  # 1,144 cases, 8 s
    "tests/test_workflow.py::test_a_bad_config_is_a_located_ys007": 5,  # a command each
    "tests/test_stages.py::test_optimize_and_dce_keep_the_values": 5,  # 64 cases, 8 s
    "tests/test_array_api.py::test_numpy_arrays_give_the_numpy_targets_numbers": 6,  # 125 cases, 8 s
    "tests/test_cli.py::test_dump_ir_with_out_file": 5,  # a command each
    "tests/test_cli.py::test_func_selection": 3,
    "tests/test_cli.py::test_unsupported_code_is_a_located_error": 3,
    "tests/test_cli.py::test_bad_arguments_exit_2_with_usage": 3,
    "tests/test_cli_conventions.py::test_the_config_selects_the_parameters_of_each_function": 2,
    "tests/test_cli_conventions.py::test_options_are_never_abbreviated": 5,
    "tests/test_cli_conventions.py::test_stdin_refusals_are_usage_errors": 3,
    "tests/test_cli_conventions.py::test_a_bad_per_function_wrt_is_a_located_ys007": 3,
    "tests/test_cli_conventions.py::test_several_sources_refusals_are_usage_errors": 3,
    "tests/test_buffers.py::test_buffered_class_gives_the_plain_results": 5,  # 125 cases, 4 s
    "tests/test_cupy.py::test_every_cupy_name_exists_and_every_call_binds": 5,  # 125 cases, 4 s
    "tests/test_workflow.py::test_check_grads_accepts_every_corpus_gradient": 5,  # 125 cases, 4 s
    "tests/test_checkpoint.py::test_the_schedule_runs_the_binomial_optimum_of_checkpoint_schedules": 5,  # 4 s
    "tests/test_corpus.py::test_gradient_has_the_parameter_shape_and_dtype": 5,  # 125 cases, 8 s
    "tests/test_cupy.py::test_gradient_matches_finite_differences_on_a_stand_in": 3,  # 125 cases, 5 s
    "tests/test_workflow.py::test_verify_input_errors": 3,  # a command each
    "tests/test_stages.py::test_random_polynomials_with_common_factors_match_sympy": 3,
    "tests/test_sparse.py::test_sparse_equals_dense_and_differences": 2,
    "tests/test_sparse.py::test_loops_and_branches_follow_the_iterations_and_the_branch_taken": 2,
    "tests/test_rules_polynomial.py::test_series_at_zero_and_every_degree": 2,
    "tests/test_complex.py::test_verify_checks_complex_gradients": 2,
}
SLOW = {
    "tests/test_jacobian_systems.py::test_the_benchmark_runs_and_checks_its_peers": 9.6,
    "tests/test_examples.py::test_the_array_api_example_gives_the_numpy_gradient_on_numpy_and_jax_arrays": 6.0,
    "tests/test_cli_conventions.py::test_quiet_prints_only_errors_and_why_check_fails": 6.0,
    "tests/test_scaling.py::test_a_3000_term_single_expression": 5.4,
    "tests/test_scaling.py::test_a_2000_term_polynomial_in_100_term_statements": 3.3,
    "tests/test_benchmarks.py::test_the_buffers_column_is_validated_and_compared_with_yota": 5.3,
    "tests/test_benchmarks.py::test_missing_peer_is_skipped_as_not_installed": 5.2,
    "tests/test_cli_conventions.py::test_color_wraps_only_the_label_and_the_caret": 4.7,
    "tests/test_checkpoint.py::test_a_source_retried_on_a_deep_stack_keeps_its_checkpoints": 4.6,
    "tests/test_cli_conventions.py::test_verbose_says_what_is_written_and_checked": 4.5,
    "tests/test_cli_conventions.py::test_several_sources_write_one_module_each_as_their_own_commands_would": 4.5,
    "tests/test_hessian.py::test_a_function_written_in_the_generated_module": 4.5,
    "tests/test_cli_conventions.py::test_wrt_per_function_on_the_command_line": 4.3,
    "tests/test_cli_conventions.py::test_stdin_check_compares_the_text_read_with_the_out_file": 4.0,
    "tests/test_cli_conventions.py::test_stdin_without_a_name_is_stdin_in_messages_and_header": 3.9,
    "tests/test_complex_jacobian.py::test_against_jax": 3.8,
    "tests/test_cli_pipes.py::test_diff_into_a_closed_pipe_is_not_an_internal_error": 3.7,
    "tests/test_no_value.py::test_project_key_value_false_gives_what_the_command_gives": 3.2,
    "tests/test_jacobian.py::test_project_config_mode": 3.5,
    "tests/test_hessian.py::test_a_scalar_gradient_with_its_fast_path_is_read_back": 3.2,
    "tests/test_hessian.py::test_an_edited_helper_of_a_generated_module_is_refused": 3.1,
    "tests/test_cli_conventions.py::test_a_command_that_writes_a_file_reads_the_config_and_reports_a_mistake_in_it": 3.1,
    "tests/test_files.py::test_file_names_with_newlines_reach_the_header_escaped_and_the_command_regenerates": 2.7,
    "tests/test_cli_conventions.py::test_no_source_and_no_config_is_a_two_line_usage_error": 2.6,
    "tests/test_stages.py::test_optimize_and_dce_keep_the_values[mlp]": 3.4,
    "tests/test_array_api.py::test_most_cases_are_accepted_and_each_refusal_is_located_and_named": 13.5,  # 250 modules
    "tests/test_corpus.py::test_generated_modules_import_only_numpy": 4.0,  # every case generated
    "tests/test_array_api.py::test_numpys_default_dtype_is_written": 1.8,  # imports PyTorch
    "tests/test_cupy.py::test_generated_cupy_corpus_is_ruff_clean": 3.6,  # every case generated
    "tests/test_corpus.py::test_generation_is_deterministic": 2.5,  # the corpus generated twice (test_cli checks a module)
    "tests/test_complex_modes.py::test_vjp_and_jvp_against_jax": 5.8,
    "tests/test_output_form.py::test_the_broken_modules_are_ruff_clean": 5.0,
    "tests/test_workflow.py::test_verify_with_an_npz_example_by_name_and_by_position": 1.6,
    "tests/test_workflow.py::test_verify_with_a_py_example_of_object_arguments": 1.6,
    "tests/test_workflow.py::test_verify_reports_the_edge_points_and_catches_a_rule_right_only_for_positive_values": 1.7,
    "tests/test_hessian.py::test_verify_reads_a_wrapped_docstring": 3.4,
    "tests/test_hessian_blocks.py::test_verify_checks_the_blocks": 3.5,
    "tests/test_complex_modes.py::test_vjp_of_a_holomorphic_function_is_j_hermitian_dout_and_torchs": 2.8,  # torch
    "tests/test_cli_conventions.py::test_the_exit_status_of_several_sources_is_the_worst": 3.9,
    "tests/test_hessian.py::test_cli_flags_header_and_config": 3.2,
    "tests/test_no_value.py::test_cli_writes_it_says_it_in_the_header_and_check_agrees": 3.2,
    "tests/test_cli.py::test_rules_files_add_primitives_and_list_rules_shows_them": 2.8,
    "tests/test_cli_conventions.py::test_a_terminal_gets_colour_unless_no_color_is_set": 2.8,
    "tests/test_workflow.py::test_check_and_diff_of_the_project_report_only_the_stale_files": 2.6,
    "tests/test_checkpoint.py::test_the_fuzzers_loop_programs_with_checkpoints": 2.3,
    "tests/test_workflow.py::test_a_config_entry_with_another_target_gives_what_its_command_gives": 2.0,
    "tests/test_checkpoint.py::test_a_checkpointed_rollouts_peak_memory_is_independent_of_its_length": 1.8,
    "tests/test_workflow.py::test_the_header_command_is_shell_quoted": 1.7,
    "tests/test_cli_conventions.py::test_one_file_with_other_options_than_the_config_is_written_as_given_with_a_warning": 1.6,
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Marks ``slow`` what ``SAMPLED`` and ``SLOW`` leave out of the fast subset (before ``-m`` deselects)."""
    seen: dict[str, int] = {}
    for item in items:
        function = item.nodeid.partition("[")[0]
        n = seen[function] = seen.get(function, -1) + 1
        if function in SLOW or item.nodeid in SLOW or n % SAMPLED.get(function, 1):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config):
    """``-n N``'s default, ``--dist load``, as ``--dist loadgroup``: a group's tests in one process."""
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """(xdist, in the controller) ``--dist loadgroup`` by ``group_of``, the costliest groups first.

    xdist's own loadgroup names a test ``nodeid@group`` in the worker that collects it, which pytest 9.2's
    read-only node ids (``Node._id``) undo: its groups never held.  Here the controller groups the ids
    it receives, whatever the versions."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:  # (the queue is complete when the first unit is assigned)
                self._ordered = True
                units = sorted(self.workqueue.items(), key=lambda kv: -_cost(kv[0], len(kv[1])))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)
