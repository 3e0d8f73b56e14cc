package transformerstudio

/**
 * A text the model cannot take, with the app's message (studio/text/inputs.py's InputError): empty input
 * ("Please enter Korean text to translate." / "Please type something first.") or input whose every character the
 * text pipeline drops (only invisible characters).
 */
class InputException(message: String) : IllegalArgumentException(message)

/** A model folder (or asset folder) that cannot be used: a file missing or damaged, or a model of another task. */
class ModelException(message: String, cause: Throwable? = null) : IllegalStateException(message, cause)
