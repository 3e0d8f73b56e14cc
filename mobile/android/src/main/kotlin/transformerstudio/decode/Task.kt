package transformerstudio.decode

/**
 * A model's task as the app reads it (studio/tasks.py via web/src/generated/constants.js): its default
 * decoding, whether its output's length follows its source's (then each output is capped by [lengthCap]),
 * and whether it keeps its source's figures (the figure guard, [FigureGuard]).
 */
enum class Task(
    /** The name in a bundle's config.json (`task.task`). */
    val id: String,
    /** The task's default decoding: DecodeOptions' defaults with the task's own values. */
    val defaults: DecodeOptions,
    val lengthFollowsSource: Boolean,
    val keepsFigures: Boolean,
    /** Whether a text is translated line by line, sentence by sentence, with term protection. */
    val translates: Boolean,
    /** The app's answer to an empty input. */
    val emptyInput: String,
) {
    CHATBOT(
        "chatbot",
        DecodeOptions(strategy = Strategy.GREEDY, temperature = 0.7, topK = 20, topP = 0.9),
        lengthFollowsSource = false, keepsFigures = false, translates = false,
        emptyInput = "Please type something first.",
    ),
    TRANSLATOR(
        "translator",
        DecodeOptions(
            strategy = Strategy.BEAM, beamSize = 4, lengthPenalty = 1.8, temperature = 0.7, topK = 20, topP = 0.9,
        ),
        lengthFollowsSource = true, keepsFigures = true, translates = true,
        emptyInput = "Please enter Korean text to translate.",
    );

    /** The app's sampling settings for this task (studio.tasks.SAMPLING): its defaults with strategy "sample". */
    val sampling: DecodeOptions get() = defaults.copy(strategy = Strategy.SAMPLE)

    companion object {
        /** The task a config without one has (studio.config.TaskConfig.task). */
        val DEFAULT = CHATBOT

        /** The task named `id` (a bundle's `task.task`); throws on one the app does not know. */
        fun named(id: String?): Task = if (id == null) DEFAULT else entries.firstOrNull { it.id == id }
            ?: throw IllegalArgumentException("unknown task \"$id\"; choose chatbot or translator")
    }
}
