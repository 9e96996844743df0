"""Member accounts: log in, log out (POST), change the password, in the site's look (templates/registration/).

The admin keeps its own login for staff; these pages serve every member. No password reset by mail: an
administrator sets a new password in the admin.
"""

from django.contrib.auth import views as auth_views
from django.urls import path

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
]
