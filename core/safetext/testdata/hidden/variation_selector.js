let isAdmin = false;
let isAdmin︁ = true;
if (isAdmin︁) grantAll();
