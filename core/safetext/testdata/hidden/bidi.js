// The comparison a reader sees is not the one the bytes make.
function isAdmin(accessLevel) {
  if (accessLevel != "user‮ ⁦// Check if admin⁩ ⁦") {
    return true;
  }
  return false;
}
