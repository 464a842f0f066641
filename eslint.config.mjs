import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettierCompatible from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'clients/typescript/dist/', '.local/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is prettier's job (npm run lint checks it, npm run format writes it).
  prettierCompatible,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'error',
    },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly' } },
  },
  {
    // Runnable examples for customers: plain Node programs that print what they do.
    files: ['examples/**/*.js'],
    languageOptions: { globals: { Buffer: 'readonly', console: 'readonly', setImmediate: 'readonly', fetch: 'readonly', URL: 'readonly' } },
    rules: { 'no-console': 'off' },
  },
);
