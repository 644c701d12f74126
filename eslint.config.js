import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['node_modules/**', 'data/**'] },
	js.configs.recommended,
	...tseslint.configs.recommended,
	prettier,
	{
		languageOptions: { globals: { ...globals.node } },
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
			'@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
			'no-restricted-syntax': [
				'error',
				{ selector: 'TSEnumDeclaration', message: 'Enums are not erasable: use a union of string literals.' },
				{ selector: 'Decorator', message: 'Decorators are not erasable: pass piece options through super(context, { ... }).' },
				{ selector: 'TSParameterProperty', message: 'Parameter properties are not erasable: declare the field.' },
			],
		},
	},
	{
		files: ['test/**/*.ts'],
		rules: {
			// The fakes and assertions read untyped JSON from real clients.
			'@typescript-eslint/no-explicit-any': 'off',
			'no-restricted-syntax': [
				'error',
				{ selector: "CallExpression[callee.name='it']", message: 'Tests use describe/test (node:test), not it.' },
			],
		},
	},
);
