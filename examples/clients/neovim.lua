-- Neovim 0.11 or later: init.lua
vim.lsp.config('pylsp', {
  cmd = { '/usr/local/bin/stdiogate', 'pylsp' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.py', '.git' },
})
vim.lsp.enable('pylsp')
