/**
 * The lexicons the screen loads. A language is one JSON file beside this one (see en.json for the shape and
 * engine.ts for the pattern syntax) plus one line here; the engine validates every file when it compiles.
 */
import de from './de.json' with { type: 'json' };
import en from './en.json' with { type: 'json' };
import es from './es.json' with { type: 'json' };
import fr from './fr.json' with { type: 'json' };
import it from './it.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const LEXICONS: readonly unknown[] = [en, es, fr, de, pt, it];
