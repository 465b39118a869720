"""``vmodtool merge``: a chain of logs of one game as one log, edited on the
way (undos, chat, deleted or annotated steps), and its final position as a
save.  A consumer of the replay (it reads it through ``Replay.run`` with
check-game's recorder, ``Replay.restore`` and ``Replay.apply_step``), so it
lives beside the other consumers, not in the replay layer."""

from vmodtool.merge.edits import Edit, read_edits
from vmodtool.merge.save import final_save_text
from vmodtool.merge.transition import MERGE_MARK, NOTE_MARK, transition_commands
from vmodtool.merge.writer import MergedStep, MergeOptions, MergeResult, merge_logs
from vmodtool.step_notes import StepAddress, read_notes

__all__ = ["MergeOptions", "StepAddress", "Edit", "MergedStep", "MergeResult", "merge_logs",
           "read_edits", "read_notes", "final_save_text", "transition_commands", "MERGE_MARK", "NOTE_MARK"]
